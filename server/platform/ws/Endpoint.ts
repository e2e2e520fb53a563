/**
 * The options every uWS WebSocket endpoint of the process shares (the console's hub at `/ws`, the keyed data API's
 * stream): explicit, as the conventions ask — the payload cap, an idle timeout uWS accepts (a multiple of 4 s, at
 * least 8) with automatic pings, the backpressure cap that closes a client which cannot keep up, no compression, no
 * lifetime cap. An endpoint gives its own payload cap and its handlers.
 */
import uWS from "uWebSockets.js"

/** The settings it reads (AppConfig's `ws`). */
export interface EndpointSettings {
  readonly idleTimeoutSeconds: number
  readonly maxBackpressureBytes: number
}

export const endpointOptions = (settings: EndpointSettings, maxPayloadLength: number) => ({
  maxPayloadLength,
  idleTimeout: Math.max(8, Math.round(settings.idleTimeoutSeconds / 4) * 4),
  sendPingsAutomatically: true,
  maxBackpressure: settings.maxBackpressureBytes,
  closeOnBackpressureLimit: true,
  compression: uWS.DISABLED,
  maxLifetime: 0
}) as const
