import express from 'express';

/** A bare Express route parsing JSON, the baseline of the track benchmark. */
const app = express();
app.use(express.json());
app.get('/readyz', (_req, res) => {
  res.json({ status: 'ready' });
});
app.post('/v1/track', (req, res) => {
  res.json({ success: true, data: { received: typeof req.body } });
});
app.listen(Number(process.env.PORT), '127.0.0.1');
