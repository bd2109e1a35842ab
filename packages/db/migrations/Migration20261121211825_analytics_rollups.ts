import { Migration } from '@mikro-orm/migrations';

export class Migration20261121211825_analytics_rollups extends Migration {

  override name = 'Migration20261121211825_analytics_rollups';

  override up(): void | Promise<void> {
    this.addSql(`create table "key_verifications_per_day" ("workspace_id" varchar(64) not null, "time" bigint not null, "key_id" varchar(64) not null, "outcome" varchar(32) not null, "api_id" varchar(64) not null, "identity_id" varchar(64) not null, "external_id" varchar(255) not null, "count" bigint not null, "spent_credits" bigint not null, "latency_sum" double precision not null, primary key ("workspace_id", "time", "key_id", "outcome", "api_id", "identity_id", "external_id"));`);
    this.addSql(`create index "key_verifications_per_day_key_id_time_index" on "key_verifications_per_day" ("key_id", "time");`);
    this.addSql(`create index "key_verifications_per_day_time_index" on "key_verifications_per_day" using brin ("time");`);

    this.addSql(`create table "key_verifications_per_hour" ("workspace_id" varchar(64) not null, "time" bigint not null, "key_id" varchar(64) not null, "outcome" varchar(32) not null, "api_id" varchar(64) not null, "identity_id" varchar(64) not null, "external_id" varchar(255) not null, "count" bigint not null, "spent_credits" bigint not null, "latency_sum" double precision not null, primary key ("workspace_id", "time", "key_id", "outcome", "api_id", "identity_id", "external_id"));`);
    this.addSql(`create index "key_verifications_per_hour_key_id_time_index" on "key_verifications_per_hour" ("key_id", "time");`);
    this.addSql(`create index "key_verifications_per_hour_time_index" on "key_verifications_per_hour" using brin ("time");`);

    this.addSql(`create table "key_verifications_per_minute" ("workspace_id" varchar(64) not null, "time" bigint not null, "key_id" varchar(64) not null, "outcome" varchar(32) not null, "api_id" varchar(64) not null, "identity_id" varchar(64) not null, "external_id" varchar(255) not null, "count" bigint not null, "spent_credits" bigint not null, "latency_sum" double precision not null, primary key ("workspace_id", "time", "key_id", "outcome", "api_id", "identity_id", "external_id"));`);
    this.addSql(`create index "key_verifications_per_minute_key_id_time_index" on "key_verifications_per_minute" ("key_id", "time");`);
    this.addSql(`create index "key_verifications_per_minute_time_index" on "key_verifications_per_minute" using brin ("time");`);

    this.addSql(`create table "key_verifications_per_month" ("workspace_id" varchar(64) not null, "time" bigint not null, "key_id" varchar(64) not null, "outcome" varchar(32) not null, "api_id" varchar(64) not null, "identity_id" varchar(64) not null, "external_id" varchar(255) not null, "count" bigint not null, "spent_credits" bigint not null, "latency_sum" double precision not null, primary key ("workspace_id", "time", "key_id", "outcome", "api_id", "identity_id", "external_id"));`);
    this.addSql(`create index "key_verifications_per_month_key_id_time_index" on "key_verifications_per_month" ("key_id", "time");`);
    this.addSql(`create index "key_verifications_per_month_time_index" on "key_verifications_per_month" using brin ("time");`);

    this.addSql(`create table "ratelimit_events_per_day" ("workspace_id" varchar(64) not null, "time" bigint not null, "namespace_id" varchar(64) not null, "identifier" varchar(512) not null, "passed" boolean not null, "count" bigint not null, primary key ("workspace_id", "time", "namespace_id", "identifier", "passed"));`);
    this.addSql(`create index "ratelimit_events_per_day_time_index" on "ratelimit_events_per_day" using brin ("time");`);

    this.addSql(`create table "ratelimit_events_per_hour" ("workspace_id" varchar(64) not null, "time" bigint not null, "namespace_id" varchar(64) not null, "identifier" varchar(512) not null, "passed" boolean not null, "count" bigint not null, primary key ("workspace_id", "time", "namespace_id", "identifier", "passed"));`);
    this.addSql(`create index "ratelimit_events_per_hour_time_index" on "ratelimit_events_per_hour" using brin ("time");`);

    this.addSql(`create table "ratelimit_events_per_minute" ("workspace_id" varchar(64) not null, "time" bigint not null, "namespace_id" varchar(64) not null, "identifier" varchar(512) not null, "passed" boolean not null, "count" bigint not null, primary key ("workspace_id", "time", "namespace_id", "identifier", "passed"));`);
    this.addSql(`create index "ratelimit_events_per_minute_time_index" on "ratelimit_events_per_minute" using brin ("time");`);

    this.addSql(`create table "ratelimit_events_per_month" ("workspace_id" varchar(64) not null, "time" bigint not null, "namespace_id" varchar(64) not null, "identifier" varchar(512) not null, "passed" boolean not null, "count" bigint not null, primary key ("workspace_id", "time", "namespace_id", "identifier", "passed"));`);
    this.addSql(`create index "ratelimit_events_per_month_time_index" on "ratelimit_events_per_month" using brin ("time");`);

    this.addSql(`create index "key_verifications_time_index" on "key_verifications" using brin ("time");`);

    this.addSql(`create index "ratelimit_events_time_index" on "ratelimit_events" using brin ("time");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "key_verifications_per_day" cascade;`);
    this.addSql(`drop table if exists "key_verifications_per_hour" cascade;`);
    this.addSql(`drop table if exists "key_verifications_per_minute" cascade;`);
    this.addSql(`drop table if exists "key_verifications_per_month" cascade;`);
    this.addSql(`drop table if exists "ratelimit_events_per_day" cascade;`);
    this.addSql(`drop table if exists "ratelimit_events_per_hour" cascade;`);
    this.addSql(`drop table if exists "ratelimit_events_per_minute" cascade;`);
    this.addSql(`drop table if exists "ratelimit_events_per_month" cascade;`);

    this.addSql(`drop index "key_verifications_time_index";`);

    this.addSql(`drop index "ratelimit_events_time_index";`);
  }

}
