// A worker just started may not have polled yet, and the server takes no Update or Query for its queue until one has:
// the call is tried again (an Update with the same id is applied once).
export async function whenPolled<T>(call: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (error) {
      if (tries >= 60 || !/no poller seen/i.test(`${(error as Error).message} ${String((error as Error).cause)}`))
        throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
