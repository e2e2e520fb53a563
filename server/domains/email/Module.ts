/** The staff e-mail workspace: contacts, threads, outbox sending, inbound mail and delivery events (§4.4, §4.6). */
import { Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { EmailConfig } from "./Config"
import { Email } from "./Email"
import { EmailErrors } from "./Errors"
import { EmailRoutes } from "./Http"

export const EmailModule = defineModule({ name: "email", layer: Layer.mergeAll(Email.Default, EmailConfig.Default), routes: EmailRoutes, errors: EmailErrors })
