"""Train a small policy for two-seat Vändtia (``cardems``) with numpy alone, and export it as
a model bot (docs/training.md).

The policy is a network of two layers over the encoding (``arena.envs.encoding``: 136 inputs,
64 hidden, one score per action of 285; illegal actions masked out), trained by REINFORCE
with a running-mean baseline and Adam in the Gymnasium one-seat environment
(``arena.envs.single``), against ``random`` and ``greedy`` by turns. Many episodes run side by
side so each move of all of them is one matrix product. The reward is the game's score: +1
for going out first, -1 for last. Run:

    pip install 'card-arena[rl]'
    python examples/train_cardems.py --minutes 3 --out examples/trained/trained.npz
    arena submit examples/trained/ --author me
    arena match trained greedy --games 400

It prints, every 20 updates, the mean reward of the last episodes against each opponent.
"""

import argparse
import time
from pathlib import Path

import numpy as np

from arena.envs.encoding import encoding
from arena.envs.model import save
from arena.envs.single import SeatEnv

BOT = '''import arena
from arena.envs.model import model_bot

Bot = model_bot(__file__.replace(".py", ".npz"))


@arena.hookimpl
def register_bots(register):
    register("trained", Bot, games=[Bot.model.game])
'''


class Policy:
    """Two layers, ReLU between, a softmax over the legal actions; Adam on both."""

    def __init__(self, inputs: int, hidden: int, actions: int, rng):
        self.params = [rng.normal(0, (2 / inputs) ** 0.5, (inputs, hidden)).astype(np.float32),
                       np.zeros(hidden, np.float32),
                       rng.normal(0, 0.01, (hidden, actions)).astype(np.float32),
                       np.zeros(actions, np.float32)]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def forward(self, x):
        w0, b0, w1, b1 = self.params
        h = np.maximum(x @ w0 + b0, 0.0)
        return h, h @ w1 + b1

    @staticmethod
    def probabilities(logits, masks):
        z = np.where(masks > 0, logits, -1e9)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z) * (masks > 0)
        return e / e.sum(axis=1, keepdims=True)

    def update(self, xs, masks, actions, advantages, lr):
        """One gradient step of REINFORCE: raise the log-probability of each action taken
        in proportion to its advantage."""
        w0, b0, w1, b1 = self.params
        h, logits = self.forward(xs)
        p = self.probabilities(logits, masks)
        g = -p
        g[np.arange(len(actions)), actions] += 1.0
        g *= advantages[:, None] / len(actions)  # d(mean advantage * log p)/d logits
        gw1, gb1 = h.T @ g, g.sum(axis=0)
        gh = (g @ w1.T) * (h > 0)
        gw0, gb0 = xs.T @ gh, gh.sum(axis=0)
        self.t += 1
        for k, grad in enumerate((gw0, gb0, gw1, gb1)):  # ascent, Adam
            self.m[k] = 0.9 * self.m[k] + 0.1 * grad
            self.v[k] = 0.999 * self.v[k] + 0.001 * grad * grad
            mh = self.m[k] / (1 - 0.9 ** self.t)
            vh = self.v[k] / (1 - 0.999 ** self.t)
            self.params[k] += lr * mh / (np.sqrt(vh) + 1e-8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="CPU minutes to train")
    parser.add_argument("--envs", type=int, default=32, help="episodes side by side")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="examples/trained/trained.npz")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    enc = encoding("vandtia", "cardems", 2)
    policy = Policy(enc.size, args.hidden, enc.actions, rng)
    opponents = ["random", "greedy"]
    envs = [SeatEnv("vandtia", "cardems", 2, seat=k % 2, opponents=[opponents[k // 2 % 2]])
            for k in range(args.envs)]
    baseline = {name: 0.0 for name in opponents}
    recent = {name: [] for name in opponents}
    episode, updates = args.seed * 1_000_000, 0
    start = time.process_time()
    while time.process_time() - start < 60 * args.minutes:
        observations = []
        for env in envs:
            episode += 1
            observations.append(env.reset(seed=episode)[0])
        trace = [[] for _ in envs]  # (vector, mask, action) per move, per episode
        rewards = [None] * len(envs)
        live = list(range(len(envs)))
        while live:
            xs = np.stack([observations[k]["observation"] for k in live])
            masks = np.stack([observations[k]["action_mask"] for k in live])
            p = Policy.probabilities(policy.forward(xs)[1], masks)
            chosen = [int(rng.choice(len(row), p=row)) for row in p]
            still = []
            for k, x, mask, action in zip(live, xs, masks, chosen, strict=True):
                trace[k].append((x, mask, action))
                observations[k], reward, done, _, _ = envs[k].step(action)
                if done:
                    rewards[k] = reward
                else:
                    still.append(k)
            live = still
        xs, masks, actions, advantages = [], [], [], []
        for k, env in enumerate(envs):
            name = env.names[1 - env.seat]
            advantage = rewards[k] - baseline[name]
            baseline[name] += 0.02 * (rewards[k] - baseline[name])
            recent[name] = (recent[name] + [rewards[k]])[-400:]
            for x, mask, action in trace[k]:
                xs.append(x)
                masks.append(mask)
                actions.append(action)
                advantages.append(advantage)
        policy.update(np.stack(xs), np.stack(masks), np.array(actions),
                      np.array(advantages, np.float32), args.lr)
        updates += 1
        if updates % 20 == 0:
            print(f"{time.process_time() - start:6.0f} s, {episode - args.seed * 1_000_000} "
                  "episodes: mean reward " + ", ".join(
                      f"against {name} {np.mean(r):+.3f}" for name, r in recent.items()),
                  flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save(str(out), "vandtia", "cardems", 2, [(policy.params[0], policy.params[1]),
                                             (policy.params[2], policy.params[3])])
    (out.parent / (out.stem + ".py")).write_text(BOT)
    print(f"saved {out} and {out.parent / (out.stem + '.py')}: submit the folder")


if __name__ == "__main__":
    main()
