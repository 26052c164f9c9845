// Node: an MCP tool's answer as the envelope the model reads (docs/tools.md §1), and an MCP failure as its MCP_* error
// code. Text content becomes `text`, structured content `data.structured_content`; images, audio and binary resources
// are described (type, MIME type, size, URI), never passed on as base64.
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Envelope, EnvelopeContext, ErrorCode as EnvelopeErrorCode } from '../../protocol/envelope.js';
import { errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import { canonicalJson } from '../../protocol/canonical-json.js';

/** A content item the model does not get verbatim, summarised. */
export interface ContentSummary {
  type: string;
  mime_type?: string;
  bytes?: number;
  uri?: string;
  name?: string;
}

/** The envelope of a finished call (`isError` results are MCP_EXECUTION_ERROR). */
export function callResultEnvelope(
  result: CallToolResult,
  options: { tool: string; context: EnvelopeContext; stats: { time_ms: number } },
): Envelope {
  const texts: string[] = [];
  const summaries: ContentSummary[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        texts.push(item.text);
        break;
      case 'image':
      case 'audio':
        summaries.push({ type: item.type, mime_type: item.mimeType, bytes: base64Bytes(item.data) });
        break;
      case 'resource_link':
        summaries.push({
          type: item.type,
          uri: item.uri,
          name: item.name,
          ...(item.mimeType ? { mime_type: item.mimeType } : {}),
        });
        break;
      case 'resource': {
        const resource = item.resource;
        // A text resource is text the tool chose to return: the model reads it, under its URI.
        if ('text' in resource && typeof resource.text === 'string') texts.push(`[${resource.uri}]\n${resource.text}`);
        else
          summaries.push({
            type: 'resource',
            uri: resource.uri,
            ...(resource.mimeType ? { mime_type: resource.mimeType } : {}),
            ...('blob' in resource && typeof resource.blob === 'string' ? { bytes: base64Bytes(resource.blob) } : {}),
          });
        break;
      }
      default: {
        const type = (item as { type?: unknown }).type;
        summaries.push({ type: typeof type === 'string' ? type : 'unknown' });
      }
    }
  }
  const structured = result.structuredContent;
  let text = texts.join('\n');
  // Servers usually send structured content as text too; the envelope says it once (§1: text never repeats data).
  if (structured !== undefined && sameJson(text, structured)) text = 'The result is in data.structured_content.';
  const data: Record<string, unknown> = {
    ...(structured !== undefined ? { structured_content: structured } : {}),
    ...(summaries.length > 0 ? { content: summaries } : {}),
  };
  if (result.isError === true) {
    return errorEnvelope({
      code: 'MCP_EXECUTION_ERROR',
      message: text.trim() || `MCP tool '${options.tool}' reported an error without a message.`,
      data,
      stats: options.stats,
      context: options.context,
    });
  }
  return okEnvelope({ data, text, stats: options.stats, context: options.context });
}

/** The MCP_* code of a call that failed before the tool answered, and a message the model can act on. */
export function mcpFailure(error: unknown, tool: string): { code: EnvelopeErrorCode; message: string } {
  const detail = error instanceof Error ? error.message : String(error);
  const code = mcpFailureCode(error);
  const lead: Record<string, string> = {
    MCP_TIMEOUT: `MCP tool '${tool}' did not answer in time`,
    MCP_NETWORK_ERROR: `MCP tool '${tool}' could not be reached`,
    MCP_PARAM_ERROR: `MCP tool '${tool}' rejected its arguments`,
    MCP_NOT_FOUND: `MCP tool '${tool}' is not offered by its server`,
    MCP_PARSE_ERROR: `MCP tool '${tool}' sent an answer that could not be read`,
    MCP_EXECUTION_ERROR: `MCP tool '${tool}' failed`,
  };
  return { code, message: `${lead[code] ?? `MCP tool '${tool}' failed`}: ${detail}` };
}

/** §1's MCP pass-through codes for what the SDK and its transports throw. */
export function mcpFailureCode(error: unknown): EnvelopeErrorCode {
  if (error instanceof McpError) {
    switch (error.code as ErrorCode) {
      case ErrorCode.RequestTimeout:
        return 'MCP_TIMEOUT';
      case ErrorCode.ConnectionClosed:
        return 'MCP_NETWORK_ERROR';
      case ErrorCode.MethodNotFound:
        return 'MCP_NOT_FOUND';
      case ErrorCode.ParseError:
        return 'MCP_PARSE_ERROR';
      case ErrorCode.InvalidParams:
        // The SDK reports an unknown tool and an answer that breaks the tool's output schema with this code too.
        if (/\bnot found\b/i.test(error.message)) return 'MCP_NOT_FOUND';
        if (/output schema|structured content/i.test(error.message)) return 'MCP_PARSE_ERROR';
        return 'MCP_PARAM_ERROR';
      case ErrorCode.InvalidRequest:
        return /structured content/i.test(error.message) ? 'MCP_PARSE_ERROR' : 'MCP_EXECUTION_ERROR';
      default:
        return 'MCP_EXECUTION_ERROR';
    }
  }
  // An answer that is not a valid CallToolResult (the SDK's schema check).
  if (error instanceof Error && error.name === 'ZodError') return 'MCP_PARSE_ERROR';
  if (error instanceof SyntaxError) return 'MCP_PARSE_ERROR';
  return 'MCP_NETWORK_ERROR';
}

/** True when the failure says the connection itself is unusable (the next call should connect afresh). */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return true;
  if (error instanceof McpError) return error.code === (ErrorCode.ConnectionClosed as number);
  return mcpFailureCode(error) === 'MCP_NETWORK_ERROR';
}

function base64Bytes(data: string): number {
  return Buffer.byteLength(data.replace(/\s/g, ''), 'base64');
}

function sameJson(text: string, value: unknown): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  try {
    return canonicalJson(JSON.parse(trimmed)) === canonicalJson(value);
  } catch {
    return false;
  }
}
