// One named part of `npm run bench`: what it measures and the rows it reports.
import type { BenchRow } from './measure.js';

/** A section of the benchmark; `id` is what `npm run bench -- <id>` selects and what names its part of the docs. */
export interface Section {
  id: string;
  name: string;
  run(): Promise<BenchRow | BenchRow[]>;
}

/** The sections the names select (all of them without names: a name is an id or the start of ids), and unknown names. */
export function selectSections(
  all: readonly Section[],
  names: readonly string[],
): { selected: Section[]; unknown: string[] } {
  const matches = (section: Section, name: string) => section.id === name || section.id.startsWith(`${name}-`);
  return {
    selected: names.length === 0 ? [...all] : all.filter((section) => names.some((name) => matches(section, name))),
    unknown: names.filter((name) => !all.some((section) => matches(section, name))),
  };
}
