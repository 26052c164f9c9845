// The BM25 tool index of core/tool-selection: what it indexes, how it ranks, and that it ranks alike every time.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolIndex, toolIndexOf } from '../../src/tools/tool-index.js';
import { indexTerms, splitWords } from '../../src/tools/search-terms.js';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ToolContract } from '../../src/tools/define-tool.js';
import { createTaskRegistry } from '../../src/tools/task-registry.js';

function tool(name: string, description: string, input: z.ZodRawShape = {}, origin: 'mcp' | 'function' = 'mcp') {
  return defineTool({
    name,
    description,
    inputSchema: z.object(input).strict(),
    category: 'read',
    confirmation: 'declared',
    isConcurrencySafe: () => true,
    pathParams: [],
    origin,
    activity: () => ({ startToCloseTimeoutMs: 1000, maximumAttempts: 1 }),
    summarize: () => name,
  }) as unknown as ToolContract;
}

const tools = [
  tool('mcp__kubernetes__list_pods', 'List pods in a namespace with their phase and restarts.'),
  tool('mcp__kubernetes__get_pod_logs', 'Fetch the logs of a container in a pod.', {
    tail_lines: z.number().describe('Number of lines from the end'),
  }),
  tool('mcp__kubernetes__scale_deployment', 'Scale a deployment to a number of replicas.'),
  tool('mcp__slack__post_message', 'Post a message to a Slack channel.', { channel: z.string().describe('Channel') }),
  tool('mcp__calendar__list_events', 'List events between two times.'),
  tool('mcp__calendar__respond_to_event', 'Accept or decline a meeting invitation.'),
  tool('getWeatherForecast', 'Weather for a city.', {}, 'function'),
  tool('mcp__billing__refund', 'Give money back.', { amount: z.number().describe('Amount in cents to return') }),
];
const names = (ranked: { name: string }[]) => ranked.map((entry) => entry.name);

describe('terms', () => {
  it('splits camelCase, snake_case and MCP names into the words prose uses', () => {
    expect(splitWords('mcp__github__create_pull_request')).toEqual(['mcp', 'github', 'create', 'pull', 'request']);
    expect(splitWords('getPullRequest')).toEqual(['get', 'Pull', 'Request']);
    expect(splitWords('HTTPServer-status')).toEqual(['HTTP', 'Server', 'status']);
  });

  it('stems, drops stop words and single characters, keeps words with digits whole', () => {
    expect(indexTerms('Deploying the deployments to S3 and EC2, a b')).toEqual(['deploy', 's3', 'ec2']);
  });
});

describe('createToolIndex', () => {
  const index = createToolIndex(tools);

  it('finds tools by the words of their names, descriptions and parameter descriptions', () => {
    expect(names(index.rank('scale up the deployment')).slice(0, 1)).toEqual(['mcp__kubernetes__scale_deployment']);
    expect(names(index.rank('post to slack')).slice(0, 1)).toEqual(['mcp__slack__post_message']);
    expect(names(index.rank('weather forecast')).slice(0, 1)).toEqual(['getWeatherForecast']);
    // Only a parameter's description says "cents".
    expect(names(index.rank('cents'))).toEqual(['mcp__billing__refund']);
  });

  it('matches inflections through the stemmer', () => {
    expect(names(index.rank('restarted pods')).slice(0, 2)).toEqual([
      'mcp__kubernetes__list_pods',
      'mcp__kubernetes__get_pod_logs',
    ]);
  });

  it("ranks a family's other tools by what the family says: a meeting finds every calendar tool", () => {
    // Only respond_to_event mentions meetings; list_events ranks through its family, below it.
    expect(names(index.rank('what meetings do I have'))).toEqual([
      'mcp__calendar__respond_to_event',
      'mcp__calendar__list_events',
    ]);
    // A function tool has no family: nothing else of the registry speaks for it.
    expect(names(index.rank('city'))).toEqual(['getWeatherForecast']);
  });

  it('keeps to the tools it may return, requires + terms, and returns nothing for words no tool has', () => {
    const among = new Set(['mcp__kubernetes__get_pod_logs', 'mcp__slack__post_message']);
    expect(names(index.rank('pods', { among }))).toEqual(['mcp__kubernetes__get_pod_logs']);
    expect(names(index.rank('pods', { required: ['logs'] }))).toEqual(['mcp__kubernetes__get_pod_logs']);
    expect(names(index.rank('', { required: ['replicas'] }))).toEqual(['mcp__kubernetes__scale_deployment']);
    expect(index.rank('zebra quantum')).toEqual([]);
    expect(index.rank('the and of')).toEqual([]);
    expect(index.rank('pods', { limit: 1 })).toHaveLength(1);
  });

  it('ranks the same way every time and in any index built from the same tools; ties go by name', () => {
    const again = createToolIndex([...tools].reverse());
    const query = 'list the pods and events, then message the channel';
    expect(again.rank(query)).toEqual(index.rank(query));
    const tied = createToolIndex([tool('mcp__b__two', 'Same words.'), tool('mcp__a__one', 'Same words.')]);
    expect(names(tied.rank('same words'))).toEqual(['mcp__a__one', 'mcp__b__two']);
  });
});

describe('toolIndexOf', () => {
  it("keeps one index per registry until the registry's tools change", () => {
    const registry = createTaskRegistry();
    const first = toolIndexOf(registry);
    expect(toolIndexOf(registry)).toBe(first);
    registry.register(tools[0]!);
    const second = toolIndexOf(registry);
    expect(second).not.toBe(first);
    expect(names(second.rank('pods'))).toEqual(['mcp__kubernetes__list_pods']);
  });
});
