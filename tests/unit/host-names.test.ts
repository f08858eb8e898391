// Which Services configuration names (domain/diagnosis/host-names.ts), one table each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostsInLogLine, hostsNamed, serviceOfHost } from '../../domain/diagnosis/host-names.ts';

describe('hostsNamed', () => {
  const rows: [string, string[]][] = [
    ['db', ['db']],
    ['postgres://app:s3cret@db.shop.svc:5432/orders?sslmode=disable', ['db.shop.svc']],
    ['redis://cache:6379', ['cache']],
    ['cache.shop:6379', ['cache.shop']],
    ['http://api.payments.svc.cluster.local/v1', ['api.payments.svc.cluster.local']],
    ['amqp://guest:guest@RabbitMQ:5672/', ['rabbitmq']],
    ['hosts=db-0.db:5432,db-1.db:5432', ['db-0.db', 'db-1.db']],
    ['connect ECONNREFUSED 10.96.0.12:5432', ['10.96.0.12']],
    ['could not connect to server: Connection refused. Is the server running on host "db" (10.96.4.2) and accepting TCP/IP connections on port 5432?', []],
    ['true', ['true']],
    ['', []],
    ['a value with spaces and no host', []],
    ['x://a:1 y://b:2 z://c:3 w://d:4 v://e:5', ['a', 'b', 'c', 'd']],
  ];
  for (const [text, want] of rows) it(JSON.stringify(text), () => assert.deepEqual(hostsNamed(text), want));

  it('never keeps credentials, paths or queries', () => {
    const hosts = hostsNamed('postgres://admin:hunter2@db:5432/prod?password=hunter3').join(' ');
    assert.doesNotMatch(hosts, /hunter|admin|prod/);
  });
});

describe('hostsInLogLine', () => {
  const rows: [string, string[]][] = [
    ['starting', []],
    ['db', []],
    ['2026/11/21 09:14:02 connecting to payments-api.payments.svc:8080', ['payments-api.payments.svc']],
    ['FATAL: dial tcp: lookup ledger-db.dq-dep-log.svc.cluster.local on 10.96.0.10:53: no such host', ['ledger-db.dq-dep-log.svc.cluster.local']],
    ['could not reach ledger-db.billing.svc.', ['ledger-db.billing.svc']],
    ['error: postgres://app:hunter2@db:5432/app: connection refused', ['db']],
    ['Error: connect ECONNREFUSED ledger-db:5432', ['ledger-db']],
    ['resolving db.shop.svc.example.com failed', []],
    ['resolving my-db.shop.svc-x failed', []],
    ['mirror at sub.db.shop.svc.cluster.local is down', []],
    ['2026-11-21T09:14:02Z retry 3 of 5 in 10:00', []],
    ['upstream=CACHE.Shop.svc timeout', ['cache.shop.svc']],
  ];
  for (const [line, want] of rows) it(JSON.stringify(line), () => assert.deepEqual(hostsInLogLine(line), want));
});

describe('serviceOfHost', () => {
  const rows: [string, { namespace: string; name: string } | null][] = [
    ['db', { namespace: 'shop', name: 'db' }],
    ['db.data', { namespace: 'data', name: 'db' }],
    ['db.data.svc', { namespace: 'data', name: 'db' }],
    ['db.data.svc.cluster.local', { namespace: 'data', name: 'db' }],
    ['db.data.svc.cluster.local.', { namespace: 'data', name: 'db' }],
    ['db-0.db.data.svc.cluster.local', null],
    ['api.example.com', null],
    ['10.96.0.12', null],
    ['0db.data', null],
  ];
  for (const [host, want] of rows) it(host, () => assert.deepEqual(serviceOfHost(host, 'shop'), want));
});
