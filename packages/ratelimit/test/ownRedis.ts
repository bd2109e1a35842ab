import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

/**
 * A redis-server of one test's own, on a free loopback port, without persistence: it can be killed
 * and started again empty, as after a crash, without touching the Redis other developers share.
 */
export interface OwnRedis {
  port: number;
  url: string;
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const [port] = (await freePorts(1)) as [number];
  let server: ChildProcess | undefined;
  const own: OwnRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      if (server !== undefined) await killServer(server);
    },
    async start() {
      server = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      await untilReady(server);
    },
  };
  await own.start();
  return own;
}

/**
 * A Redis Cluster of one test's own: three masters (no replicas), each a redis-server on free
 * loopback ports, without persistence, made a cluster by `redis-cli --cluster create`.
 */
export interface OwnRedisCluster {
  nodes: { host: string; port: number }[];
  /** REDIS_URL naming every node. */
  url: string;
  /** Stops every node from answering (SIGSTOP), as on a stalled network, until thaw. */
  freeze(): void;
  thaw(): void;
  /** Ends one master at once (SIGKILL), as a crash would: its slots go unserved, there are no replicas. */
  killMaster(index: number): Promise<void>;
  /** Starts that master again on its port with its nodes.conf: it rejoins serving the same slots, empty. */
  restartMaster(index: number): Promise<void>;
  kill(): Promise<void>;
}

const CLUSTER_MASTERS = 3;

export async function startOwnRedisCluster(): Promise<OwnRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'keyplane-cluster-'));
  const servers: ChildProcess[] = [];
  const kill = async () => {
    await Promise.all(servers.map(killServer));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // The cluster bus of each gets a free port of its own: the default, port + 10000, may be taken or past 65535.
    const ports = await freePorts(2 * CLUSTER_MASTERS);
    const startMaster = async (master: number) => {
      const [port, busPort] = ports.slice(2 * master, 2 * master + 2) as [number, number];
      const server = spawn(
        'redis-server',
        [
          ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
          ...['--cluster-enabled', 'yes', '--cluster-port', String(busPort)],
          ...['--cluster-config-file', `nodes-${port}.conf`],
          ...['--save', '', '--appendonly', 'no', '--daemonize', 'no'],
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      servers[master] = server;
      await untilReady(server);
    };
    const nodes: { host: string; port: number }[] = [];
    for (let master = 0; master < CLUSTER_MASTERS; master++) {
      await startMaster(master);
      nodes.push({ host: '127.0.0.1', port: ports[2 * master] as number });
    }
    const addresses = nodes.map(({ host, port }) => `${host}:${port}`);
    await promisify(execFile)('redis-cli', [
      ...['--cluster', 'create', ...addresses],
      ...['--cluster-replicas', '0', '--cluster-yes'],
    ]);
    await Promise.all(nodes.map(({ port }) => untilClusterOk(port)));
    const signal = (name: NodeJS.Signals) => () => {
      for (const server of servers) server.kill(name);
    };
    return {
      nodes,
      url: `redis+cluster://${addresses.join(',')}`,
      freeze: signal('SIGSTOP'),
      thaw: signal('SIGCONT'),
      async killMaster(index) {
        await killServer(servers[index] as ChildProcess);
      },
      async restartMaster(index) {
        await startMaster(index);
        await Promise.all(nodes.map(({ port }) => untilClusterOk(port)));
      },
      kill,
    };
  } catch (error) {
    await kill();
    throw error;
  }
}

async function killServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = once(server, 'exit');
  server.kill('SIGKILL');
  await exited;
}

/** Resolves once the node at `port` sees every slot served (it learns the others' slots by gossip). */
async function untilClusterOk(port: number): Promise<void> {
  const node = new Redis(port, '127.0.0.1');
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (String(await node.cluster('INFO')).includes('cluster_state:ok')) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`The cluster node on port ${port} did not reach cluster_state:ok`);
  } finally {
    node.disconnect();
  }
}

/** `count` distinct free ports: each probe holds its port until all are chosen. */
async function freePorts(count: number): Promise<number[]> {
  const probes = Array.from({ length: count }, () => createServer().listen(0, '127.0.0.1'));
  await Promise.all(probes.map((probe) => once(probe, 'listening')));
  const ports = probes.map((probe) => {
    const address = probe.address();
    if (address === null || typeof address === 'string') throw new Error('The probe has no TCP address');
    return address.port;
  });
  await Promise.all(probes.map((probe) => once(probe.close(), 'close')));
  return ports;
}

/** Resolves once the server says it accepts connections; rejects if it exits first. */
async function untilReady(server: ChildProcess): Promise<void> {
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Ready to accept connections')) return;
      // Still drained, so that a full pipe never blocks the server.
      server.stdout?.off('data', read).resume();
      resolve();
    };
    server.stdout?.on('data', read);
    server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)));
  });
}
