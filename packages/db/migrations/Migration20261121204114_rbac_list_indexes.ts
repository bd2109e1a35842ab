import { Migration } from '@mikro-orm/migrations';

export class Migration20261121204114_rbac_list_indexes extends Migration {

  override name = 'Migration20261121204114_rbac_list_indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "roles_workspace_id_id_index" on "roles" ("workspace_id", "id");`);

    this.addSql(`create index "permissions_workspace_id_id_index" on "permissions" ("workspace_id", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "permissions_workspace_id_id_index";`);

    this.addSql(`drop index "roles_workspace_id_id_index";`);
  }

}
