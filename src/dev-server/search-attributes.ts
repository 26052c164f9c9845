// The Agent* search attributes in the embedded server's terms: `--search-attribute` flags of `temporal server start-dev`
// and the operator service's IndexedValueType numbers, both derived from the definitions in workflows/search-attributes.
import type { Connection } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import { AGENT_SEARCH_ATTRIBUTES } from '../protocol/search-attributes.js';
import { DevServerError } from './errors.js';

// Each type's name for `temporal server start-dev --search-attribute NAME=TYPE`, and its wire number
// (temporal.api.enums.v1.IndexedValueType), which the operator service speaks.
const TYPES: Readonly<Record<SearchAttributeType, { cli: string; indexed: number }>> = {
  TEXT: { cli: 'Text', indexed: 1 },
  KEYWORD: { cli: 'Keyword', indexed: 2 },
  INT: { cli: 'Int', indexed: 3 },
  DOUBLE: { cli: 'Double', indexed: 4 },
  BOOL: { cli: 'Bool', indexed: 5 },
  DATETIME: { cli: 'Datetime', indexed: 6 },
  KEYWORD_LIST: { cli: 'KeywordList', indexed: 7 },
};

const agentAttributes = Object.values(AGENT_SEARCH_ATTRIBUTES);

/** The `--search-attribute NAME=TYPE` arguments that register every agent search attribute at server start. */
export function searchAttributeArgs(): string[] {
  return agentAttributes.flatMap(({ name, type }) => ['--search-attribute', `${name}=${TYPES[type].cli}`]);
}

/** Registers any missing agent search attribute in `namespace`; a same-named attribute of another type is an error. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const existing = { ...listed.systemAttributes, ...listed.customAttributes } as Record<string, number>;
  const missing: Record<string, number> = {};
  for (const { name, type } of agentAttributes) {
    const wanted = TYPES[type].indexed;
    const found = existing[name];
    if (found === undefined) missing[name] = wanted;
    else if (found !== wanted) {
      throw new DevServerError(
        `Search attribute ${name} exists in namespace ${namespace} with another type (IndexedValueType ${found}); it must be ${TYPES[type].cli}.`,
      );
    }
  }
  if (Object.keys(missing).length > 0)
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
}

/** True when every agent search attribute is registered; a cluster without them still runs agents, unfiltered. */
export async function hasAgentSearchAttributes(connection: Connection, namespace: string): Promise<boolean> {
  try {
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    const existing = { ...listed.systemAttributes, ...listed.customAttributes };
    return agentAttributes.every(({ name }) => name in existing);
  } catch {
    return false; // no permission to list: do not risk a workflow task failing on an unknown attribute
  }
}
