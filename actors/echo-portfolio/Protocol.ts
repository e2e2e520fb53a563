/**
 * Messages of the echo-portfolio actor on `echo.cmd`: the stream's contract, which the echo domain publishes, lives in
 * schema/streams.ts (so neither imports the other); re-exported here as the actor's protocol.
 */
export { EchoAutoCopy, EchoCommand, EchoCopy, EchoReset, EchoRetract, EchoTouch, EchoTrade } from "../../schema/streams"
