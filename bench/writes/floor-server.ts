import Fastify from 'fastify';
import { Pool, PoolClient } from 'pg';

// The floor bench's server (floor.ts): a priority write over HTTP to PostgreSQL with nothing of svc in between, so
// its rate is what a Node process on this machine can do with the same round trips. SHAPE=4: lock, update, in one
// transaction; SHAPE=9: svc's nine round trips of a priority write (credential, ref, transaction, lock, claim,
// update, commit, the item again, its comments), each against a table of its size.

const shape = Number(process.env.SHAPE ?? '9');
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL ?? '10') });
const app = Fastify();

async function write(client: PoolClient, id: number, value: string): Promise<unknown> {
  if (shape === 9) {
    await client.query('SELECT id, name FROM floor_tokens WHERE id = $1', [1]);
    await client.query('SELECT id, project FROM floor_items WHERE id = $1', [id]);
  }
  await client.query('BEGIN');
  try {
    await client.query('SELECT id, priority, title FROM floor_items WHERE id = $1 FOR UPDATE', [id]);
    if (shape === 9) await client.query('SELECT item_id FROM floor_claims WHERE item_id = $1 FOR UPDATE', [id]);
    await client.query('UPDATE floor_items SET priority = $2, updated_at = now() WHERE id = $1', [id, value]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
  if (shape !== 9) return { id, priority: value };
  const rows = await client.query('SELECT id, priority, title, updated_at FROM floor_items WHERE id = $1', [id]);
  await client.query('SELECT body FROM floor_comments WHERE item_id = $1 ORDER BY id DESC LIMIT 5', [id]);
  return rows.rows[0];
}

app.patch<{ Params: { id: string }; Body: { value: string } }>('/items/:id/priority', async (request) => {
  const client = await pool.connect();
  try {
    return await write(client, Number(request.params.id), request.body.value);
  } finally {
    client.release();
  }
});

void app.listen({ port: 0, host: '127.0.0.1' }).then((address) => process.stdout.write(`${address}\n`));
// an orderly exit on the driver's signal, so `--cpu-prof` (FLOOR_NODE_ARGS) writes its profile
process.once('SIGTERM', () => process.exit(0));
