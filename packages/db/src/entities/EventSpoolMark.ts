import { defineEntity, p } from '@mikro-orm/core';

/**
 * Which events of a server process's local spool are already in PostgreSQL: the spool positions
 * `firstPosition` to `lastPosition` of one owner, committed in the same transaction as those events.
 * Replaying a spool skips what is marked, so a crash between that commit and the removal of the
 * spool file counts nothing twice.
 */
export const EventSpoolMarkSchema = defineEntity({
  name: 'EventSpoolMark',
  tableName: 'event_spool_marks',
  properties: {
    owner: p.string().length(32).primary(),
    firstPosition: p.bigint('number').primary(),
    lastPosition: p.bigint('number'),
    createdAt: p.datetime(),
  },
});

export class EventSpoolMark extends EventSpoolMarkSchema.class {}
EventSpoolMarkSchema.setClass(EventSpoolMark);
