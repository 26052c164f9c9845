// The command table is the CLI's one list of commands: `--help` is generated from it and each entry carries its help.
import { describe, expect, it } from 'vitest';
import { COMMANDS, findCommand, usage } from '../../src/cli/command-table.js';
import { commandHelp } from '../../src/cli/option-table.js';

describe('the command table', () => {
  it('has each command of the CLI contract once', () => {
    const names = COMMANDS.map((command) => command.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of [
      'run',
      'start',
      'watch',
      'status',
      'approve',
      'deny',
      'cancel',
      'list',
      'history',
      'replay',
      'worker',
      'dev-server',
    ])
      expect(names).toContain(name);
  });

  it('lists every command in --help, in table order, with its arguments and summary on one aligned line', () => {
    const lines = usage().split('\n');
    expect(lines[0]).toBe('Usage: durable-agent <command> [options]');
    const listed = lines.filter((line) => line.startsWith('  '));
    expect(listed.map((line) => line.trim().split(' ')[0])).toEqual(COMMANDS.map((command) => command.name));
    const summaryColumn = new Set(listed.map((line, index) => line.indexOf(COMMANDS[index]!.summary)));
    expect(summaryColumn.size).toBe(1);
    expect(listed[COMMANDS.findIndex((command) => command.name === 'approve')]).toMatch(
      /^ {2}approve ID CALL +approve/,
    );
  });

  it('gives each command a help text that starts with its own usage line', async () => {
    for (const command of COMMANDS)
      expect(commandHelp(command.name, await command.loadOptions()), command.name).toMatch(
        new RegExp(`^Usage: durable-agent ${command.name}\\b`),
      );
  });

  it('finds commands by exact name only', () => {
    expect(findCommand('status')?.name).toBe('status');
    expect(findCommand('stat')).toBeUndefined();
    expect(findCommand('toString')).toBeUndefined();
  });
});
