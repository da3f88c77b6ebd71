import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { addStorageFlags, etcdServersFromFlags, parseDatastore, storageConfigFromFlags } from './storage-flags.js';

describe('the storage flags', () => {
  it('reads --datastore etcd://HOST:PORT[,HOST:PORT] as --etcd-servers http://…', () => {
    assert.deepEqual(parseDatastore('etcd://127.0.0.1:2379'), { kind: 'etcd', servers: ['http://127.0.0.1:2379'] });
    assert.deepEqual(parseDatastore('etcd://a:2379,b.example:2380'), { kind: 'etcd', servers: ['http://a:2379', 'http://b.example:2380'] });
    assert.deepEqual(storageConfigFromFlags({ dataDir: '/d', datastore: 'etcd://e:2379', etcdPrefix: '/registry' }), { dataDir: '/d', etcdServers: ['http://e:2379'] });
    assert.deepEqual(parseDatastore('sqlite://'), { kind: 'sqlite' });
    assert.deepEqual(storageConfigFromFlags({ dataDir: '/d', datastore: 'sqlite://', etcdPrefix: '/registry' }), { dataDir: '/d' });
  });

  it('refuses anything else with a clear error', () => {
    assert.throws(() => parseDatastore('mysql://u@h/db'), /unsupported --datastore "mysql:\/\/u@h\/db": use etcd:\/\/HOST:PORT\[,HOST:PORT\] or sqlite:\/\//);
    assert.throws(() => parseDatastore('etcd://host'), /invalid --datastore "etcd:\/\/host": "host" is not HOST:PORT/);
    assert.throws(() => parseDatastore('etcd://h:99999'), /"h:99999" is not HOST:PORT/);
    assert.throws(() => parseDatastore('sqlite:///tmp/x.db'), /choose its place with --data-dir/);
    assert.throws(() => etcdServersFromFlags({ datastore: 'etcd://h:1', etcdServers: 'http://h:1' }), /give --datastore or --etcd-servers, not both/);
  });

  it('refuses a bad --datastore while parsing the command line', () => {
    const command = addStorageFlags(new Command('x').exitOverride().configureOutput({ writeErr: () => undefined }), '.k8ts');
    assert.throws(() => command.parse(['--datastore', 'redis://h'], { from: 'user' }), /unsupported --datastore "redis:\/\/h"/);
  });
});
