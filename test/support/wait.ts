/** Polls until the condition holds, or fails with the last state after the timeout. */
export const waitFor = async (condition: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 20) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await condition()) return
    await new Promise((r) => setTimeout(r, everyMs))
  }
  if (await condition()) return
  throw new Error(`condition not met within ${timeoutMs} ms`)
}
