// Node: the JSON Schema validators of the worker and the CLI, configured once: ajv for draft-07 and for 2020-12, with
// the standard formats. allErrors: a model repairs every violation at once. strict: false: real schemas carry keywords
// ajv does not know (vendor extensions), which should not make a schema unusable.
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';

// ajv-formats is CommonJS with a default export; under NodeNext its default import is the module object.
const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default;

/** Draft-07, ajv's default dialect. */
export const draft07 = new Ajv({ allErrors: true, strict: false });
/** JSON Schema 2020-12. */
export const draft2020 = new Ajv2020({ allErrors: true, strict: false });
addFormats(draft07);
addFormats(draft2020);
