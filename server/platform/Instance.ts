/**
 * This process's name on the bus and in leases: stable for the process's life, distinct between processes (the
 * consumer name of every stream group it reads, the holder of the singleton leases it takes, the `process` of its
 * ops reports).
 */
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"

export const INSTANCE = `${hostname()}-${process.pid}-${randomBytes(2).toString("hex")}`
