/** Query parameters whose values never reach a log line. */
const SECRET_PARAMS = /^(api_key|apikey|key|token|access_token|refresh_token|secret|password|code|signature|sig)$/i

export const redactQuery = (query: string): string =>
  query
    .split("&")
    .map((pair) => {
      const i = pair.indexOf("=")
      const name = i < 0 ? pair : pair.slice(0, i)
      let decoded = name
      try {
        decoded = decodeURIComponent(name)
      } catch {
        // keep the raw name
      }
      return i >= 0 && SECRET_PARAMS.test(decoded) ? `${name}=***` : pair
    })
    .join("&")
