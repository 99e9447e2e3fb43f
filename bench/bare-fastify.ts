// The floor of the load bench: a bare Fastify route in its own process, same Node, same machine.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
console.log(`listening http://127.0.0.1:${port}`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
