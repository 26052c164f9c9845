// The keys of an attached `run`: what each keypress does to the line being typed and which control message it sends.
import { describe, expect, it } from 'vitest';
import { LineEditor } from '../../src/cli/attached-input.js';

const type = (editor: LineEditor, text: string) =>
  [...text].map((char) => editor.press(char, { name: char, sequence: char }));

describe('LineEditor', () => {
  it('sends a typed line on Enter, edited by Backspace and Ctrl-U', () => {
    const editor = new LineEditor();
    expect(type(editor, 'also docz').every((action) => action.type === 'none')).toBe(true);
    editor.press('\x7f', { name: 'backspace' });
    type(editor, 's');
    expect(editor.press('\r', { name: 'return' })).toEqual({ type: 'say', text: 'also docs' });
    expect(editor.line).toBe('');
    type(editor, 'scrap this');
    editor.press('\x15', { name: 'u', ctrl: true });
    expect(editor.press('\r', { name: 'return' })).toEqual({ type: 'none' });
  });

  it('interrupts on Esc, detaches on Ctrl-C and Ctrl-D, and types no control character', () => {
    const editor = new LineEditor();
    expect(editor.press('\x1b', { name: 'escape' })).toEqual({ type: 'interrupt' });
    expect(editor.press('\x03', { name: 'c', ctrl: true })).toEqual({ type: 'detach' });
    expect(editor.press('\x04', { name: 'd', ctrl: true })).toEqual({ type: 'detach' });
    editor.press('\x1b[31m', { name: undefined, sequence: '\x1b[31m' });
    editor.press('\x07', { name: undefined, sequence: '\x07' });
    type(editor, 'ok');
    expect(editor.press('\r', { name: 'return' })).toEqual({ type: 'say', text: 'ok' });
  });
});
