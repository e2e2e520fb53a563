/** The playbook's services as one layer (needs the SQL client and the bus from the platform, and the chain domain's `Chain`). */
import { Layer } from "effect"
import { PlaybookConfig } from "./Config"
import { Engine } from "./Engine"
import { FlowRepo } from "./FlowRepo"
import { Playbook } from "./Playbook"
import { PlaybookReads } from "./Reads"
import { PlaybookRepo } from "./Repo"

export const PlaybookLive = PlaybookReads.Default.pipe(
  Layer.provideMerge(Playbook.Default),
  Layer.provideMerge(Engine.Default),
  Layer.provideMerge(Layer.mergeAll(PlaybookRepo.Default, FlowRepo.Default, PlaybookConfig.Default))
)
