import autocannon from 'autocannon';

import { figure, KEYS, startStamp } from './harness.ts';

/**
 * Resident memory of the embedded platform (its own process): idle after start, then after
 * 100,000 contacts were created through POST /contacts (50 connections).
 */
const count = Number(process.env.CONTACTS ?? 100_000);
const stamp = await startStamp();
await new Promise((resolve) => setTimeout(resolve, 1000));
const idle = stamp.rss();
let counter = 0;
const started = performance.now();
const result = await autocannon({
  url: `${stamp.url}/contacts`,
  connections: 50,
  amount: count,
  requests: [
    {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.secretKey}`, 'content-type': 'application/json' },
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({
          email: `person${counter++}@example.org`,
          data: { plan: counter % 3 === 0 ? 'pro' : 'free', visits: counter % 17, city: 'Lisbon' },
        }),
      }),
    },
  ],
});
const seconds = (performance.now() - started) / 1000;
await new Promise((resolve) => setTimeout(resolve, 2000));
const loaded = stamp.rss();
const list = await fetch(`${stamp.url}/contacts?limit=1`, {
  headers: { authorization: `Bearer ${KEYS.secretKey}` },
});
const total = ((await list.json()) as { total: number }).total;
await stamp.stop();

figure('memory.rss_idle', Math.round(idle / 2 ** 20), 'MiB');
figure('memory.contacts_created', result['2xx'], 'contacts');
figure('memory.contacts_listed_total', total, 'contacts');
figure('memory.create_rate', result['2xx'] / seconds, 'contacts/s');
figure('memory.rss_after_contacts', Math.round(loaded / 2 ** 20), 'MiB');
