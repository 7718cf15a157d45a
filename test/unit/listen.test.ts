// A stop must not wait on a client that keeps its connection busy: a load
// balancer's health check over keep-alive asks again and again, and before
// this was handled a stopping bridge waited for it until it was killed.
import { Agent, request } from 'node:http';
import { expect, it } from 'vitest';
import { listen } from '../../src/http/listen.ts';

function get(url: string, agent: Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
    })
      .on('error', reject)
      .end();
  });
}

it('stops while a keep-alive client keeps asking, and tells it the connection is closing', async () => {
  // Each request answered after 30 ms, but the fourth, held until the stop has begun.
  let seen = 0;
  let holdFourth!: (answer: () => void) => void;
  const fourth = new Promise<() => void>((resolve) => (holdFourth = resolve));
  const server = await listen(
    (_request, response) => {
      if (++seen === 4) holdFourth(() => response.end('ok'));
      else setTimeout(() => response.end('ok'), 30);
    },
    0,
    '127.0.0.1',
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const answers: Array<{ status: number; connection: string | undefined }> = [];
  let asking = true;
  const client = (async () => {
    while (asking) {
      const answer = await get(`${server.localUrl}/readyz`, agent).catch(() => undefined);
      if (answer) answers.push(answer);
      else break;
    }
  })();
  // A request is under way on the kept-alive connection when the stop begins: the fourth, which the server holds.
  // (Before, a 10 ms sleep into 30 ms answers: a loaded machine could begin the stop between two requests, or with
  // an answer on its way.)
  const answerFourth = await fourth;
  const answered = answers.length;
  const closing = server.close();
  answerFourth();
  const stopped = await Promise.race([
    closing.then(() => 'stopped'),
    new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3_000)),
  ]);
  asking = false;
  await client;
  agent.destroy();

  expect(stopped).toBe('stopped');
  // The request under way when the stop began was answered, and told to close; nothing was asked on that connection after it.
  expect(answers.slice(0, answered)).toEqual(
    Array.from({ length: answered }, () => ({ status: 200, connection: 'keep-alive' })),
  );
  expect(answers.slice(answered)).toEqual([{ status: 200, connection: 'close' }]);
});
