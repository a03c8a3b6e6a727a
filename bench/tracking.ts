import { fetchJson } from '@stamp/testkit/net.ts';
import { parseMessage } from '@stamp/testkit/smtp-sink.ts';
import autocannon from 'autocannon';

import { figure, KEYS, startProcess, startStamp } from './harness.ts';

/**
 * Open pixels and click redirects: 100 tracked emails from the sandbox sender (local outbox),
 * whose pixel and link URLs are read back from the outbox; then GET /t/o/<token> and GET
 * /t/c/<token> (rotating over the 100 emails) with 50 connections for 10 s each, each hit
 * recording an open or a click; and the same load on a bare Express redirect in the same run.
 * Prints requests/s, p99 and the ratios to the bare route.
 */
const EMAILS = 100;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36';

async function load(url: string, paths: readonly string[], title: string) {
  let counter = 0;
  return autocannon({
    title,
    url,
    connections: 50,
    duration: 10,
    requests: [
      {
        method: 'GET',
        headers: { 'user-agent': BROWSER },
        setupRequest: (request) => ({ ...request, path: paths[counter++ % paths.length] ?? '/' }),
      },
    ],
  });
}

const stamp = await startStamp();
const ids: string[] = [];
for (let batch = 0; batch < EMAILS / 50; batch += 1) {
  const sent = await fetchJson(`${stamp.url}/v1/send`, {
    method: 'POST',
    key: KEYS.secretKey,
    body: {
      to: Array.from({ length: 50 }, (_, index) => `reader${batch * 50 + index}@example.org`),
      from: 'news@sandbox.stamp.localhost',
      subject: 'Tracked',
      body: '<p>Read <a href="https://example.org/landing">the news</a></p>',
    },
  });
  ids.push(
    ...(sent.body as { data: { emails: { email: string }[] } }).data.emails.map((e) => e.email),
  );
}
const opens: string[] = [];
const clicks: string[] = [];
for (const id of ids) {
  let raw: string | undefined;
  while (raw === undefined) {
    const found = await fetchJson(`${stamp.url}/outbox/${id}`, { key: KEYS.secretKey });
    if (found.status === 200) raw = (found.body as { raw: string }).raw;
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { html } = await parseMessage(raw);
  const text = typeof html === 'string' ? html : '';
  opens.push(/\/t\/o\/[\w.-]+/.exec(text)?.[0] ?? '/t/o/missing');
  clicks.push(/\/t\/c\/[\w.-]+/.exec(text)?.[0] ?? '/t/c/missing');
}
await load(stamp.url, opens, 'warm-up');
const pixel = await load(stamp.url, opens, 'pixel');
const click = await load(stamp.url, clicks, 'click');
await stamp.stop();
const bare = await startProcess('bench/bare-server.ts', {});
const baseline = await load(bare.url, ['/redirect'], 'bare');
await bare.stop();

figure('pixel.requests_per_s', pixel.requests.average, 'req/s');
figure('pixel.latency_p99', pixel.latency.p99, 'ms');
figure('pixel.non2xx', pixel.non2xx, 'responses');
figure('click.requests_per_s', click.requests.average, 'req/s');
figure('click.latency_p99', click.latency.p99, 'ms');
figure('click.not_3xx', click.requests.total - click['3xx'], 'responses');
figure('bare_express.requests_per_s', baseline.requests.average, 'req/s');
figure('bare_express.latency_p99', baseline.latency.p99, 'ms');
figure('pixel.ratio_to_bare_express', pixel.requests.average / baseline.requests.average, 'x');
figure('click.ratio_to_bare_express', click.requests.average / baseline.requests.average, 'x');
