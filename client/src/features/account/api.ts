/** The account page's calls, by their shared contracts (schema/http/auth.ts, apikeys.ts, dataapi.ts). */
import { ApiKeyEndpoints as K } from "../../../../schema/http/apikeys"
import { AuthEndpoints as A } from "../../../../schema/http/auth"
import { DataApiEndpoints as D } from "../../../../schema/http/dataapi"
import { call } from "../../api/http"

export const accountApi = {
  me: () => call(A.me),
  profile: (displayName: string) => call(A.profile, { body: { display_name: displayName.trim() === "" ? null : displayName.trim() } }),
  password: (current: string, next: string) => call(A.password, { body: { current_password: current, new_password: next } }),
  sessions: () => call(A.sessions),
  revokeSession: (id: string) => call(A.revokeSession, { params: { session_id: id } }),
  keys: () => call(K.list),
  createKey: (name: string) => call(K.create, { body: { name } }),
  revokeKey: (prefix: string) => call(K.revoke, { body: { prefix } }),
  usage: () => call(D.accountUsage)
}
