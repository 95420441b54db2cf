// The reference for scripts/bench-queue: BullMQ draining JOBS noop jobs with
// one worker of the given concurrency, on the same redis-server.
//
//   NODE_PATH=DIR/node_modules node scripts/lib/bullmq-noop.js PORT|SOCKET JOBS CONCURRENCY
//
// Prints "<jobs/s>" on its last line. Completed jobs are removed (lodwash
// keeps none either), so both queues do the same work per job.
'use strict';
const { Queue, Worker } = require('bullmq');

async function main() {
  const at = process.argv[2];
  const [jobs, concurrency] = process.argv.slice(3).map(Number);
  // a port on 127.0.0.1, or the path of Redis' Unix socket
  const connection = at.startsWith('/') ? { path: at } : { host: '127.0.0.1', port: Number(at) };
  const queue = new Queue('bench', { connection });
  const opts = { removeOnComplete: true, removeOnFail: true };
  for (let start = 0; start < jobs; start += 1000) {
    const batch = [];
    for (let i = start; i < Math.min(start + 1000, jobs); ++i) {
      batch.push({ name: 'noop', data: {}, opts });
    }
    await queue.addBulk(batch);
  }
  let done = 0;
  let finished;
  const all = new Promise((resolve) => { finished = resolve; });
  const t0 = process.hrtime.bigint();
  const worker = new Worker('bench', async () => {}, { connection, concurrency });
  worker.on('completed', () => {
    if (++done === jobs) {
      finished();
    }
  });
  await all;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await worker.close();
  await queue.close();
  console.log(Math.round(jobs / seconds));
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
