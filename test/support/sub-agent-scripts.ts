// Scripts of a root that delegates: its first step starts one code-edit sub-agent, whose one call is a command.
import type { ScriptTurn } from '../../src/scripted-model/server.js';

/**
 * A root (task "Root task…") whose first step starts one code-edit child (call `task`) that runs `command` (call `nap`)
 * and answers `slept` if it ever gets there; then `after`, the root's own turns.
 */
export function childCommandScript(command: string, after: ScriptTurn[] = []): ScriptTurn[] {
  return [
    {
      for_task: 'Root task',
      tool_calls: [
        {
          id: 'task',
          name: 'Task',
          arguments: { description: 'nap', prompt: 'Child task: sleep.', profile: 'code-edit' },
        },
      ],
    },
    { for_task: 'Child task', tool_calls: [{ id: 'nap', name: 'Bash', arguments: { command } }] },
    { for_task: 'Child task', content: 'slept' },
    ...after,
  ];
}
