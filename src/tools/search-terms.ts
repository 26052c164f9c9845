// Workflow-safe: the words tool texts and ranking queries are made of, the same on both sides of the index.
// Pure string work and the Porter2 stemmer (no clock, no randomness), so a replay ranks the same way.
import stem from 'wink-porter2-stemmer';

// English words that say nothing about which tool a task needs: they would only add noise to every score.
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both but ' +
    'by can could did do does doing done down during each either else etc even ever every few for from further get ' +
    'got had has have having he her here hers herself him himself his how i if in into is it its itself just let like ' +
    'may me might more most much must my myself need needs no nor not now of off on once one only or other our ours ' +
    'ourselves out over own please per same shall she should so some such than that the their theirs them themselves ' +
    'then there these they this those through thus to too under until up upon us use used using very via want was we ' +
    'were what when where whether which while who whom whose why will with within without would yet you your yours ' +
    'yourself yourselves'
  ).split(' '),
);

/**
 * The words of a text: split on anything that is not a letter or a digit and inside camelCase, so tool names
 * (`getPullRequest`, `list_pods`, `mcp__github__create_issue`) and prose give the same words.
 */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
}

/** A word as the index holds it: lower case and stemmed; undefined for stop words and single characters. */
export function indexTerm(word: string): string | undefined {
  const lower = word.toLowerCase();
  if (lower.length < 2 || STOP_WORDS.has(lower)) return undefined;
  // Digits carry no inflection (`s3`, `ec2`, `404`); the stemmer would only mangle them.
  return /\d/.test(lower) ? lower : stem(lower);
}

/** The distinct index terms of a text, in order of first appearance. */
export function indexTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const word of splitWords(text)) {
    const term = indexTerm(word);
    if (term !== undefined) terms.add(term);
  }
  return [...terms];
}
