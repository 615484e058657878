// Real exporters on loopback for scrape tests: a prom-client registry served over HTTP
// (or HTTPS), and a server whose answer each test sets (status, body, delay, auth).
import http from 'node:http';
import https from 'node:https';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { Registry, Counter, Gauge, Histogram, Summary } from 'prom-client';

export interface Exporter {
  /** host:port */
  address: string;
  registry: Registry;
  requests: http.IncomingHttpHeaders[];
  /** replaces the answer: the registry's metrics unless set */
  answer: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null;
}

export async function startExporter(t: Test, opts: { tls?: { key: string; cert: string } } = {}): Promise<Exporter> {
  const registry = new Registry();
  const exporter: Exporter = { address: '', registry, requests: [], answer: null };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    exporter.requests.push(req.headers);
    if (exporter.answer) { exporter.answer(req, res); return; }
    void registry.metrics().then((text) => {
      const gzip = /gzip/.test(String(req.headers['accept-encoding'] ?? ''));
      res.writeHead(200, { 'content-type': registry.contentType, ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      res.end(gzip ? gzipSync(text) : text);
    });
  };
  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  exporter.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return exporter;
}

/** A registry with one of each type, with fixed values. */
export function appMetrics(registry: Registry) {
  const requests = new Counter({ name: 'app_requests_total', help: 'Requests served', labelNames: ['method', 'code'], registers: [registry] });
  const temperature = new Gauge({ name: 'app_temperature_celsius', help: 'Temperature', labelNames: ['room'], registers: [registry] });
  const latency = new Histogram({ name: 'app_latency_seconds', help: 'Latency', buckets: [0.1, 1], registers: [registry] });
  const size = new Summary({ name: 'app_response_bytes', help: 'Response size', percentiles: [0.5, 0.9], registers: [registry] });
  requests.inc({ method: 'GET', code: '200' }, 7);
  requests.inc({ method: 'post', code: '500' }, 2);
  temperature.set({ room: 'lab' }, 21.5);
  latency.observe(0.05);
  latency.observe(0.5);
  latency.observe(3);
  size.observe(100);
  size.observe(300);
  return { requests, temperature, latency, size };
}
