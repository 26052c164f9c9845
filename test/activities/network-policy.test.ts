// The network proxy's rules: which addresses no approved command reaches however they are spelled, which hosts an
// approval covers, and the worker's control plane refused even when the host was approved by name.
import { describe, expect, it } from 'vitest';
import { controlPlaneEndpoints } from '../../src/activities/sandbox/control-plane.js';
import { addressKind, canonicalAddress } from '../../src/activities/sandbox/network-addresses.js';
import type { NetworkRules } from '../../src/activities/sandbox/network-policy.js';
import {
  judgeAddresses,
  judgeHost,
  normalizeHost,
  parseHostEntry,
} from '../../src/activities/sandbox/network-policy.js';

describe('addressKind', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['10.1.2.3', 'private'],
    ['172.31.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.100.100.200', 'private'],
    ['fd00:ec2::254', 'private'],
    ['192.0.2.2', 'private'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it('is undefined for anything but an IP literal, and spells IPv4-mapped addresses as IPv4', () => {
    for (const text of ['localhost', '127.1', '0x7f000001', '1:2:3:4:5:6:7:8:9', ':::', '1.2.3.256']) {
      expect(addressKind(text), text).toBeUndefined();
    }
    expect(canonicalAddress('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(canonicalAddress('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });
});

describe('normalizeHost and parseHostEntry', () => {
  it('spell a host the way clients send it: numeric IPv4 forms as dotted quads, no case, no trailing dot', () => {
    expect(normalizeHost('0x7f000001')).toBe('127.0.0.1');
    expect(normalizeHost('127.1')).toBe('127.0.0.1');
    expect(normalizeHost('2130706433')).toBe('127.0.0.1');
    expect(normalizeHost('Example.COM.')).toBe('example.com');
    expect(normalizeHost('[::FFFF:127.0.0.1]')).toBe('::ffff:7f00:1');
    expect(normalizeHost('a b')).toBeUndefined();
    expect(normalizeHost('user@host')).toBeUndefined();
  });

  it('reads host and host:port entries', () => {
    expect(parseHostEntry('registry.npmjs.org')).toEqual({ host: 'registry.npmjs.org' });
    expect(parseHostEntry('Example.com:8443')).toEqual({ host: 'example.com', port: 8443 });
    expect(parseHostEntry('[::1]:80')).toEqual({ host: '::1', port: 80 });
    expect(parseHostEntry('2001:db8::1')).toEqual({ host: '2001:db8::1' });
    expect(parseHostEntry('host:99999')).toBeUndefined();
  });
});

const rules = (approved?: string[]): NetworkRules => ({
  ...(approved ? { approved: approved.map((entry) => parseHostEntry(entry)!) } : {}),
  controlPlane: [{ host: 'temporal', port: 7233, source: 'TEMPORAL_ADDRESS', addresses: ['10.0.0.7'] }],
  localAddresses: new Set(['127.0.0.1', '192.0.2.2']),
});

describe('judgeHost and judgeAddresses', () => {
  it('an approved list covers its hosts (every port, or the one named) and nothing else', () => {
    const approved = rules(['github.com', 'example.com:8443']);
    expect(judgeHost(approved, 'github.com', 22)).toEqual({ allowed: true });
    expect(judgeHost(approved, 'example.com', 8443)).toEqual({ allowed: true });
    expect(judgeHost(approved, 'example.com', 443)).toMatchObject({ allowed: false });
    expect(judgeHost(approved, 'evil.example', 443)).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('github.com, example.com:8443'),
    });
  });

  it('refuses loopback, link-local and unspecified addresses even for an approved name, and if any address is one', () => {
    const approved = rules(['rebind.example', 'metadata.example']);
    const host = { host: 'rebind.example', port: 443 };
    expect(judgeAddresses(approved, host, ['93.184.215.14'])).toEqual({ allowed: true });
    expect(judgeAddresses(approved, host, ['93.184.215.14', '127.0.0.1'])).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('loopback'),
    });
    expect(judgeAddresses(approved, { host: 'metadata.example', port: 80 }, ['::ffff:169.254.169.254'])).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('link-local'),
    });
    expect(judgeAddresses(approved, host, ['0.0.0.0'])).toMatchObject({ allowed: false });
  });

  it('private and own addresses pass only for a host approved by name; the control plane never', () => {
    expect(judgeAddresses(rules(['git.corp']), { host: 'git.corp', port: 443 }, ['10.1.2.3'])).toEqual({
      allowed: true,
    });
    expect(judgeAddresses(rules(), { host: 'git.corp', port: 443 }, ['10.1.2.3'])).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('private'),
    });
    expect(judgeAddresses(rules(), { host: 'me.example', port: 80 }, ['192.0.2.2'])).toMatchObject({
      allowed: false,
    });
    expect(judgeAddresses(rules(['temporal']), { host: 'temporal', port: 7233 }, ['10.0.0.7'])).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('control plane (TEMPORAL_ADDRESS: temporal:7233)'),
    });
    expect(judgeAddresses(rules(['10.0.0.7']), { host: '10.0.0.7', port: 7233 }, ['10.0.0.7'])).toMatchObject({
      allowed: false,
    });
    expect(judgeAddresses(rules(['10.0.0.7']), { host: '10.0.0.7', port: 80 }, ['10.0.0.7'])).toEqual({
      allowed: true,
    });
  });

  it("a local control-plane port is refused on every one of this machine's addresses", () => {
    const local: NetworkRules = {
      approved: [{ host: '192.0.2.2' }],
      controlPlane: [
        { host: '127.0.0.1', port: 8234, source: 'DURABLE_AGENT_DEV_CODEC_PORT', addresses: ['127.0.0.1'] },
      ],
      localAddresses: new Set(['127.0.0.1', '192.0.2.2']),
    };
    expect(judgeAddresses(local, { host: '192.0.2.2', port: 8234 }, ['192.0.2.2'])).toMatchObject({ allowed: false });
    expect(judgeAddresses(local, { host: '192.0.2.2', port: 8000 }, ['192.0.2.2'])).toEqual({ allowed: true });
  });
});

describe('controlPlaneEndpoints', () => {
  it("lists the worker's Temporal frontend, the configured UI and codec, and the embedded server's ports", () => {
    const endpoints = controlPlaneEndpoints(
      {
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_UI_URL: 'http://ui.internal:8080',
        DURABLE_AGENT_DEV_PORT: '7300',
        DURABLE_AGENT_DEV_HTTP_PORT: '7400',
      },
      '[fd00::5]:7233',
    );
    expect(endpoints.map(({ host, port, source }) => `${source} ${host}:${port}`)).toEqual([
      "the worker's Temporal frontend fd00::5:7233",
      'TEMPORAL_ADDRESS temporal:7233',
      'TEMPORAL_UI_URL ui.internal:8080',
      'DURABLE_AGENT_DEV_PORT 127.0.0.1:7300',
      'DURABLE_AGENT_DEV_UI_PORT 127.0.0.1:8300',
      'DURABLE_AGENT_DEV_HTTP_PORT 127.0.0.1:7400',
      'DURABLE_AGENT_DEV_CODEC_PORT 127.0.0.1:8234',
    ]);
  });
});
