// Bare hyper-express "hello JSON" server: the anchor the daemon's HTTP overhead is measured against.
import HyperExpress from 'hyper-express';

const port = Number(process.argv[2] ?? 8091);
const BODY = JSON.stringify({ name: 'hello', version: 'v1', status: 'operational' });
const app = new HyperExpress.Server();
app.any('/*', (_req, res) => {
  res.header('content-type', 'application/json; charset=utf-8').send(BODY);
});
await app.listen(port, '127.0.0.1');
console.log(`hyperexpress-hello on ${port}`);
