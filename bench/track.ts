import autocannon from 'autocannon';

import { figure, KEYS, startProcess, startStamp } from './harness.ts';

/**
 * POST /v1/track with 50 connections for 10 s against the embedded platform (its own process),
 * then the same load against a bare Express route; prints requests/s, p99 and the ratio, and the
 * CPU time of each server per request (all its threads), steadier on a shared machine.
 */
async function load(url: string, title: string): Promise<autocannon.Result> {
  let counter = 0;
  return autocannon({
    title,
    url: `${url}/v1/track`,
    connections: 50,
    duration: 10,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.publicKey}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            event: 'page-view',
            email: `user${counter++ % 5000}@example.org`,
            data: { n: counter },
          }),
        }),
      },
    ],
  });
}

const stamp = await startStamp();
await load(stamp.url, 'warm-up');
const stampCpu = stamp.cpuMs();
const result = await load(stamp.url, 'track');
const stampCpuPerRequest = ((stamp.cpuMs() - stampCpu) * 1000) / result.requests.total;
await stamp.stop();
const bare = await startProcess('bench/bare-server.ts', {});
const bareCpu = bare.cpuMs();
const baseline = await load(bare.url, 'bare');
const bareCpuPerRequest = ((bare.cpuMs() - bareCpu) * 1000) / baseline.requests.total;
await bare.stop();

figure('track.requests_per_s', result.requests.average, 'req/s');
figure('track.latency_p50', result.latency.p50, 'ms');
figure('track.latency_p99', result.latency.p99, 'ms');
figure('track.non2xx', result.non2xx, 'responses');
figure('bare_express.requests_per_s', baseline.requests.average, 'req/s');
figure('bare_express.latency_p99', baseline.latency.p99, 'ms');
figure('track.ratio_to_bare_express', result.requests.average / baseline.requests.average, 'x');
figure('track.cpu_per_request', stampCpuPerRequest, 'µs');
figure('bare_express.cpu_per_request', bareCpuPerRequest, 'µs');
figure('track.cpu_ratio_to_bare_express', bareCpuPerRequest / stampCpuPerRequest, 'x');
