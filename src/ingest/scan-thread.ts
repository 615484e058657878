// A parse thread: scans tagged submission bodies (tagged-fast.ts) and posts the columns
// back, with the tag maps it numbered since its last reply (tag-sets.ts), so the engine's
// thread spends no time on the text. Anything the scanner declines answers `batch: null`;
// the engine's thread then parses the body the ordinary way, which names every error.
import { parentPort } from 'node:worker_threads';
import { scanTaggedBody, threadTagSets, type ScannedBatch } from './tagged-fast.js';
import type { ScanReply, ScanRequest } from './scan-threads.js';

const port = parentPort;
if (port === null) throw new Error('scan-thread.ts runs as a worker thread');

port.on('message', (req: ScanRequest) => {
  const tags = threadTagSets;
  const generation = tags.generation;
  const first = tags.sets.length;
  let scanned: ScannedBatch | null = null;
  try {
    scanned = scanTaggedBody(req.body, req.limits, req.maxDepth, tags);
  } catch {
    scanned = null; // whatever it is, the ordinary path meets it again and says what is wrong
  }
  // every map numbered in this scan is reported, even when the batch is given up
  const news = tags.generation === generation
    ? { generation, first, added: tags.sets.slice(first) }
    : { generation: tags.generation, first: 0, added: tags.sets.slice() };
  if (scanned === null) {
    const declined: ScanReply = { id: req.id, tags: news, batch: null };
    port.postMessage(declined);
    return;
  }
  const v = scanned.values;
  const buffer = v.time.buffer as ArrayBuffer;
  const reply: ScanReply = {
    id: req.id, tags: news,
    batch: { length: v.length, capacity: v.time.length, metrics: v.metrics as string[], buffer, metricInputs: scanned.metricInputs },
  };
  port.postMessage(reply, [buffer]);
});
