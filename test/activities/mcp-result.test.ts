import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argumentProblems } from '../../src/activities/mcp/arguments.js';
import {
  callResultEnvelope,
  isConnectionFailure,
  mcpFailure,
  mcpFailureCode,
} from '../../src/activities/mcp/result.js';

const context = { tool_call_id: 'c1', cwd: '.', params_input: {} };
const envelope = (result: Parameters<typeof callResultEnvelope>[0]) =>
  callResultEnvelope(result, { tool: 'mcp__x__y', context, stats: { time_ms: 5 } });
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('MCP result → envelope', () => {
  it('joins text content into text', () => {
    expect(
      envelope({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toMatchObject({ status: 'success', text: 'one\ntwo', data: {}, stats: { time_ms: 5 } });
  });

  it('summarises images, audio and resources instead of passing base64 on', () => {
    const result = envelope({
      content: [
        { type: 'text', text: 'here' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/zip', blob: 'AAAAAA==' } },
        { type: 'resource', resource: { uri: 'file:///c.txt', text: 'inline text' } },
      ],
    });
    expect(result.text).toBe('here\n[file:///c.txt]\ninline text');
    expect(result.data.content).toEqual([
      { type: 'image', mime_type: 'image/png', bytes: 70 },
      { type: 'audio', mime_type: 'audio/wav', bytes: 3 },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mime_type: 'text/plain' },
      { type: 'resource', uri: 'file:///b.bin', mime_type: 'application/zip', bytes: 4 },
    ]);
    expect(JSON.stringify(result)).not.toContain(PNG);
  });

  it('puts structured content into data and does not repeat it as text', () => {
    const structured = { sum: 3, terms: [1, 2] };
    expect(
      envelope({
        content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }],
        structuredContent: structured,
      }),
    ).toMatchObject({ text: 'The result is in data.structured_content.', data: { structured_content: structured } });
    expect(envelope({ content: [{ type: 'text', text: 'sum is 3' }], structuredContent: structured })).toMatchObject({
      text: 'sum is 3',
      data: { structured_content: structured },
    });
  });

  it('makes an isError result MCP_EXECUTION_ERROR with the tool’s own words', () => {
    expect(envelope({ isError: true, content: [{ type: 'text', text: 'ENOENT: no such file' }] })).toMatchObject({
      status: 'error',
      text: 'ENOENT: no such file',
      error: { code: 'MCP_EXECUTION_ERROR', message: 'ENOENT: no such file' },
    });
    expect(envelope({ isError: true, content: [] }).text).toBe(
      "MCP tool 'mcp__x__y' reported an error without a message.",
    );
  });
});

describe('MCP failures → codes', () => {
  it.each([
    [new McpError(ErrorCode.RequestTimeout, 'Request timed out'), 'MCP_TIMEOUT'],
    [new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), 'MCP_NETWORK_ERROR'],
    [new McpError(ErrorCode.InvalidParams, 'Invalid arguments for tool x'), 'MCP_PARAM_ERROR'],
    [new McpError(ErrorCode.InvalidParams, 'Tool x not found'), 'MCP_NOT_FOUND'],
    [new McpError(ErrorCode.MethodNotFound, 'Method not found'), 'MCP_NOT_FOUND'],
    [new McpError(ErrorCode.ParseError, 'Parse error'), 'MCP_PARSE_ERROR'],
    [
      new McpError(ErrorCode.InvalidParams, "Structured content does not match the tool's output schema"),
      'MCP_PARSE_ERROR',
    ],
    [new McpError(ErrorCode.InternalError, 'boom'), 'MCP_EXECUTION_ERROR'],
    [z.object({ content: z.array(z.string()) }).safeParse({ content: 1 }).error, 'MCP_PARSE_ERROR'],
    [new StreamableHTTPError(404, 'Session not found'), 'MCP_NETWORK_ERROR'],
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'MCP_NETWORK_ERROR'],
    [new TypeError('fetch failed'), 'MCP_NETWORK_ERROR'],
  ])('%s → %s', (error, code) => {
    expect(mcpFailureCode(error)).toBe(code);
  });

  it('says what failed in a message the model can act on', () => {
    expect(mcpFailure(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), 'mcp__x__y')).toEqual({
      code: 'MCP_TIMEOUT',
      message: "MCP tool 'mcp__x__y' did not answer in time: MCP error -32001: Request timed out",
    });
  });

  it('treats a closed connection as needing a new one, a refused argument not', () => {
    expect(isConnectionFailure(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'))).toBe(true);
    expect(isConnectionFailure(new StreamableHTTPError(404, 'gone'))).toBe(true);
    expect(isConnectionFailure(new McpError(ErrorCode.InvalidParams, 'bad'))).toBe(false);
  });
});

describe('argumentProblems', () => {
  it("checks arguments against the server's schema in its own dialect", () => {
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 }, mode: { enum: ['fast', 'slow'] } },
      required: ['path'],
      additionalProperties: false,
    };
    expect(argumentProblems(draft07, { path: 'a', mode: 'fast' })).toEqual([]);
    expect(argumentProblems(draft07, { path: '', mode: 'quick', extra: 1 })).toEqual([
      "the arguments must not have 'extra'",
      "'path' must NOT have fewer than 1 characters",
      "'mode' must be equal to one of the allowed values",
    ]);
    const draft2020 = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { items: { type: 'array', prefixItems: [{ type: 'number' }] } },
    };
    expect(argumentProblems(draft2020, { items: ['x'] })).toEqual(["'items.0' must be number"]);
  });
});
