// A server process as far as the event spool is concerned, for the spool's tests: spools the
// verification events it is given, writes the first `committed` of them to PostgreSQL with their
// marks, prints its owner id and waits to be killed, as a process that crashed right after its last
// commit and before removing its spool file. Run with one JSON argument (SpoolProcessPlan).
import { createOrm } from '@keyplane/db';
import { writeWithMarks } from '../src/eventRecorder.ts';
import { openEventSpool } from '../src/eventSpool.ts';
import { rowsOf } from '../src/eventTable.ts';
import { verificationStream } from '../src/recorders.ts';
import { type VerificationEvent, verificationTable } from '../src/verificationEvents.ts';

export interface SpoolProcessPlan {
  dir: string;
  databaseId: string;
  databaseUrl: string;
  events: VerificationEvent[];
  committed: number;
}

const plan = JSON.parse(process.argv[2] ?? '{}') as SpoolProcessPlan;
const spool = await openEventSpool({ dir: plan.dir, databaseId: plan.databaseId });
const positions = plan.events.map((event) => spool.append(verificationStream.tag, verificationTable.row(event)));
await spool.written();
if (plan.committed > 0) {
  const orm = await createOrm(plan.databaseUrl, { poolSize: 1 });
  await writeWithMarks(
    orm,
    verificationTable,
    spool.owner,
  )({
    ...rowsOf(verificationTable, plan.events.slice(0, plan.committed)),
    positions: positions.slice(0, plan.committed),
  });
}
process.stdout.write(`${spool.owner}\n`);
setInterval(() => {}, 60_000);
