import { hash, verify } from '@node-rs/argon2';
import express from 'express';

import { ARGON2_OPTIONS } from '../services/accounts/src/users/passwords.ts';

/** Bare Express routes: the baselines of the track, list, memory and logins benchmarks. */
const app = express();
app.use(express.json());
app.get('/readyz', (_req, res) => {
  res.json({ status: 'ready' });
});
/** A page as large as a contacts page, the baseline of the list benchmarks. */
const page = {
  data: Array.from({ length: 20 }, (_, index) => ({
    id: `0193a0b0-0000-7000-8000-${String(index).padStart(12, '0')}`,
    email: `user${index}@example.org`,
    subscribed: true,
    data: { plan: 'pro', country: 'FR', seats: index },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  })),
  cursor: '',
  hasMore: true,
  total: 1_000_000,
};
app.get('/page', (_req, res) => {
  res.json(page);
});
/**
 * A page that fetches `/page` and renders it as a table, the baseline of the dashboard
 * benchmark's contacts page (the same browser, no framework).
 */
app.get('/table', (_req, res) => {
  res.type('html')
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contacts</title></head>
<body><main><h1>Contacts</h1><table><thead><tr><th>Email</th><th>Subscribed</th></tr></thead><tbody></tbody></table></main>
<script>
fetch('/page').then((response) => response.json()).then((page) => {
  const body = document.querySelector('tbody');
  for (const contact of page.data) {
    const row = body.insertRow();
    row.insertCell().textContent = contact.email;
    row.insertCell().textContent = String(contact.subscribed);
  }
});
</script></body></html>`);
});
/** A redirect, the baseline of the tracking benchmark's click redirects. */
app.get('/redirect', (_req, res) => {
  res.redirect(302, 'https://example.org/landing');
});
app.post('/v1/track', (req, res) => {
  res.json({ success: true, data: { received: typeof req.body } });
});
/** A password check at Stamp's argon2id cost, the baseline of the logins benchmark. */
const stored = await hash('correct horse battery', ARGON2_OPTIONS);
app.post('/auth/login', async (req, res) => {
  const { password } = req.body as { password: string };
  const ok = await verify(stored, password);
  res.status(ok ? 200 : 401).json({ ok });
});
app.listen(Number(process.env.PORT), '127.0.0.1');
