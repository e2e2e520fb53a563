/**
 * The actors: the layer above the domains. Every actor of the program is one line of `ACTORS`, in start order;
 * `server/App.ts` starts them in the `actors` role (those WHALE_ACTORS selects, all by default), each supervised
 * by the platform's runtime (server/platform/actors). An actor lives in `actors/<name>/` — its Protocol.ts and
 * Behaviour.ts — and uses domain services and the platform; nothing below imports it.
 *
 * Adding an actor: its folder, one line in ACTORS, and (if it keeps state across its lives for other actors to
 * share, like the echo entities) its layer in ActorServices.
 */
import { Layer } from "effect"
import { AlertEventsActor, AlertFanoutActor } from "./alert-fanout/Behaviour"
import { AlertShardsActor } from "./alert-fanout/Shards"
import { AuthJanitorActor } from "./auth-janitor/Behaviour"
import { BlockListenerActor } from "./block-listener/Behaviour"
import { ConsoleSnapshotsActor } from "./console-snapshots/Behaviour"
import { DemoHistoryActor } from "./demo-history/Behaviour"
import { DripMailerActor } from "./drip-mailer/Behaviour"
import { EchoPortfolioActor, EchoWatchActor } from "./echo-portfolio/Behaviour"
import { EchoEntities } from "./echo-portfolio/Entities"
import { IndexCloserActor } from "./index-closer/Behaviour"
import { MailOutboxActor } from "./mail-outbox/Behaviour"
import { AlertRetrierActor, NotifierActor } from "./notifier/Behaviour"
import { PicksGraderActor } from "./picks-grader/Behaviour"
import { PlaybookLiveActor } from "./playbook-live/Behaviour"
import { QuotaCounterActor } from "./quota-counter/Behaviour"
import { WatchlistLiveActor } from "./watchlist-live/Behaviour"
import { WhaleDiscoveryActor } from "./whale-discovery/Behaviour"

/** Every actor, in start order (WHALE_ACTORS names them by `name`). */
export const ACTORS = [
  MailOutboxActor,
  AuthJanitorActor,
  BlockListenerActor,
  WhaleDiscoveryActor,
  DemoHistoryActor,
  IndexCloserActor,
  DripMailerActor,
  PicksGraderActor,
  PlaybookLiveActor,
  QuotaCounterActor,
  ConsoleSnapshotsActor,
  AlertFanoutActor,
  AlertEventsActor,
  AlertShardsActor,
  NotifierActor,
  AlertRetrierActor,
  EchoPortfolioActor,
  EchoWatchActor,
  WatchlistLiveActor
] as const

/**
 * What actors keep across their lives, built once per process above the modules' services: the echo-portfolio
 * actor's per-user entities (shared with echo-watch, which marks them for revaluation).
 */
export const ActorServices = Layer.mergeAll(EchoEntities.Default)
