// The Web UI's page of a run, for the commands that print a link to it.

/** The Web UI page of one run. */
export function runUrl(
  connected: { uiUrl?: string; namespace: string },
  workflowId: string,
  runId?: string,
): string | undefined {
  if (!connected.uiUrl) return undefined;
  const base = connected.uiUrl.replace(/\/$/, '');
  const id = encodeURIComponent(workflowId);
  return `${base}/namespaces/${encodeURIComponent(connected.namespace)}/workflows/${id}${runId ? `/${runId}` : ''}/history`;
}
