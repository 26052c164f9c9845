// Types of wink-porter2-stemmer, which ships none: one function from an English word to its Porter2 stem.
declare module 'wink-porter2-stemmer' {
  /** The Porter2 (Snowball English) stem of a lower-case word. */
  export default function stem(word: string): string;
}
