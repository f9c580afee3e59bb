// lownode: a bot in JavaScript for every game. It speaks protocol 2 (docs/protocol.md):
// many matches per process, each keyed by its "match"; in each it plays the first legal
// action that puts cards down ("play ..."), or else the first legal action.
const readline = require("readline");

const lines = readline.createInterface({ input: process.stdin, terminal: false });
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const choose = (legal) => legal.find((a) => typeof a === "string" && a.startsWith("play ")) ?? legal[0];

lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") {
    const reply = { type: "ready" };
    if (message.protocol >= 2 && "match" in message) {
      reply.protocol = 2;
      reply.match = message.match;
    }
    send(reply);
  } else if (message.type === "act") {
    if (message.requests) {
      send({ type: "actions",
             actions: message.requests.map((r) => ({ match: r.match, action: choose(r.legal) })) });
    } else {
      send({ type: "action", action: choose(message.legal) });
    }
  }
});
