// A chat webhook on loopback that keeps every body posted to it: what a copilot report or an
// alert would have said in Slack. Started before a file's tests, closed after them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';

export interface ChatReceiver {
  /** Every body posted so far, oldest first. */
  readonly posts: string[];
  /** The webhook's URL (valid once the file's `before` hooks have run). */
  url(): string;
}

export function chatReceiverForFile(path = '/hooks/abc'): ChatReceiver {
  const posts: string[] = [];
  let server: Server | undefined;
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        posts.push(body);
        res.writeHead(200).end('ok');
      });
    });
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    const open = server;
    if (open) await new Promise((resolve) => open.close(resolve));
  });
  return { posts, url: () => `http://127.0.0.1:${(server?.address() as AddressInfo).port}${path}` };
}
