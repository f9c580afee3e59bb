// A second client for remote bots (docs/protocol.md, "Remote bots"), in JavaScript: it does
// what `arena connect` does, with no arena installed. It connects to a league's /ws/bot with
// an API token, says hello, and for every channel the server opens it starts the bot's
// program (here: any executable bot - a command that speaks docs/protocol.md on its stdin and
// stdout) and relays its lines both ways.
//
//   node --experimental-websocket connect.js URL TOKEN NAME GAMES CODE -- COMMAND...
//   node --experimental-websocket connect.js http://127.0.0.1:8000/ $TOKEN lownode vandtia \
//        0123456789abcdef -- node ../node-bot/lownode.js
//
// (Node 22 and later have WebSocket without the flag.) It holds no clock: the server keeps
// them. A dropped connection ends it (the server forfeits the matches in play after its
// grace period); `arena connect` reconnects instead.
"use strict";
const { spawn } = require("child_process");
const readline = require("readline");

const args = process.argv.slice(2);
const split = args.indexOf("--");
if (split < 5 || split === args.length - 1) {
  process.stderr.write("usage: connect.js URL TOKEN NAME GAMES CODE -- COMMAND...\n");
  process.exit(2);
}
const [url, token, name, games, code] = args.slice(0, 5);
const command = args.slice(split + 1);
const address = url.replace(/\/+$/, "").replace(/^http/, "ws") + "/ws/bot";
// Node's WebSocket (undici) takes headers in its second argument's options
const ws = new WebSocket(address, { headers: { Authorization: "Bearer " + token } });
const channels = new Map(); // channel -> the bot's process

const send = (message) => ws.send(JSON.stringify(message));

ws.addEventListener("open", () => {
  send({ type: "hello", bot: name, games: games.split(","), code: code, channels: [] });
});

ws.addEventListener("message", (event) => {
  const message = JSON.parse(event.data);
  if (message.type === "welcome") {
    process.stderr.write(`connected: ${message.bot} plays from here\n`);
  } else if (message.type === "refused") {
    process.stderr.write(`refused: ${message.error}\n`);
    process.exit(2);
  } else if (message.type === "open") {
    const bot = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
    const number = message.channel;
    channels.set(number, bot);
    readline.createInterface({ input: bot.stdout, terminal: false }).on("line", (line) => {
      send({ channel: number, message: JSON.parse(line) });
    });
    bot.on("exit", () => {
      if (channels.delete(number)) send({ type: "closed", channel: number });
    });
  } else if (message.type === "close") {
    const bot = channels.get(message.channel);
    channels.delete(message.channel);
    if (bot) bot.stdin.end();
  } else if (channels.has(message.channel)) {
    channels.get(message.channel).stdin.write(JSON.stringify(message.message) + "\n");
  }
});

ws.addEventListener("close", () => {
  for (const bot of channels.values()) bot.kill();
  process.exit(0);
});
