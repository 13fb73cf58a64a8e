type Show = (message: string, ...items: string[]) => Thenable<string | undefined>;

/**
 * Shows a message whose buttons stand for actions that code compares (`'Show Logs'`), under labels
 * in the display language, and answers the action picked rather than its label.
 */
export async function showWithActions<A extends string>(
  show: Show,
  message: string,
  actions: readonly A[],
  label: (action: A) => string,
): Promise<A | undefined> {
  const labels = actions.map(label);
  const picked = await show(message, ...labels);
  const index = picked === undefined ? -1 : labels.indexOf(picked);
  return index < 0 ? undefined : actions[index];
}
