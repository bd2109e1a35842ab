import { defineEntity, p } from '@mikro-orm/core';

/** Secrets every node must share (the dashboard's cookie-signing key), created once by whichever node starts first. */
export const ServerSecretSchema = defineEntity({
  name: 'ServerSecret',
  tableName: 'server_secrets',
  properties: {
    name: p.string().length(64).primary(),
    value: p.blob(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class ServerSecret extends ServerSecretSchema.class {}
ServerSecretSchema.setClass(ServerSecret);
