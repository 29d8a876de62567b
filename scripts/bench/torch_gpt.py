"""The policy GPT of src/core/policy/model.ts in PyTorch: the reference `npm run bench -- policy`
compares tfjs against (what a researcher would use instead). Standard library and torch only.

Same model, same numbers: token + learned position embeddings, pre-LN blocks of causal multi-head
attention (scale 1/sqrt(D), additive -1e9 bias on masked keys) and a GELU (tanh) MLP, final
LayerNorm (eps 1e-5), tied or untied head; linear weights are (in, out) as in tfjs (y = x @ w + b).
Weights come from the TS side (scripts/bench/torch-gpt.ts): a JSON header and a raw float32
little-endian file, parameters in model.ts's parameterShapes order.

One JSON request on stdin, one JSON reply on stdout (or a list of requests, a list of replies):
  {"op": "logits", "weights": HEADER, "tokens": [[...]], "positions": [[...]], "pad": [...],
   "prefill": P?}      -> {"shape": [B, T, V], "logits": [...]}; with prefill, positions >= P are
                          decoded one at a time through the KV cache (the sampler's path)
  {"op": "update", "weights": HEADER, "reference": HEADER?, "train": TrainConfig, "samples": [...],
   "seed": n, "out": PATH?} -> metrics of one GRPO update (policy.ts's update) on those samples;
                          with out, the updated weights written there (float32 LE, no header)
  {"op": "bench", "weights": HEADER, "train": TrainConfig, "workload": {...},
   "runs": [{"threads": n, "reps": n, "warmups": n?, "device": "cpu"|"cuda"?}, ...]} -> per run, from the same initial weights:
                          median sampled tok/s and ms per GRPO update, wall and CPU time, over
                          reps timed repetitions after warmups (default 1) untimed ones
"""
import array
import ctypes
import json
import math
import os
import random
import statistics
import sys
import time

import torch
import torch.nn.functional as F

FORMAT = "code-a1-gpt-f32le/1"
NEG = -1e9  # the additive mask value of model.ts and batch.ts (finite: 0 * NEG stays 0 in the entropy)


# ---------------------------------------------------------------------------------------------
# Weights and model


def load_weights(header_path):
    """(config, {name: tensor}) from a header written by torch-gpt.ts's writeRawWeights."""
    with open(header_path) as f:
        header = json.load(f)
    if header.get("format") != FORMAT:
        raise SystemExit(f"{header_path}: format {header.get('format')!r}, expected {FORMAT!r}")
    with open(os.path.join(os.path.dirname(header_path), header["data"]), "rb") as f:
        raw = bytearray(f.read())
    flat = torch.frombuffer(raw, dtype=torch.float32)
    if sys.byteorder != "little":
        flat = flat.byteswap()
    params, offset = {}, 0
    for entry in header["params"]:
        n = math.prod(entry["shape"])
        params[entry["name"]] = flat[offset:offset + n].clone().reshape(entry["shape"])
        offset += n
    if offset != flat.numel():
        raise SystemExit(f"{header_path}: {flat.numel()} floats in the data file, the header names {offset}")
    return header["config"], params


class Gpt:
    """model.ts's GptModel over a dict of parameter tensors (shared, not copied)."""

    def __init__(self, cfg, params):
        self.cfg = cfg
        self.p = params
        self.heads = cfg["heads"]
        self.D = cfg["dModel"] // cfg["heads"]

    def new_cache(self, B, S):
        """Per block, keys and values (B, H, S, D) filled in place as positions are seen."""
        shape = (B, self.heads, S, self.D)
        return [(torch.zeros(shape), torch.zeros(shape)) for _ in range(self.cfg["layers"])]

    def last_rows(self, x, T, pad):
        """Each row's last position, (B, 1, C): of x (B, T, C), or of the packed rows (R, C) of rows padded by `pad`."""
        if pad is None:
            return x[:, -1:]
        B = len(pad)
        return x[torch.tensor([T - pad[b] for b in range(B)]).cumsum(0) - 1].reshape(B, 1, -1)

    def forward(self, tokens, positions, bias, cache=None, start=0, last_only=False, pad=None, out_rows=None):
        """tokens, positions (B, T) int64; bias (B or 1, 1, T, S) additive, S = start + T;
        cache: keys/values of positions [0, start) (written at [start, S) here). -> (B, T or 1, V)
        pad (a prefill, start 0): each row's left padding, left out of the per-position work as
        model.ts's leftPad does (zero keys and values there, which the bias masks).
        out_rows (a loss, no cache): flat indices into the B*T positions; the last block's output
        projection, MLP and residuals, the final LayerNorm and the head at those rows alone, as
        model.ts' outputRows with outputRowsFromLastBlock does on wasm -> (M, V)."""
        p, H, D = self.p, self.heads, self.D
        B, T = tokens.shape
        C = self.cfg["dModel"]
        real = None
        if pad is not None and start == 0 and any(pad):
            real = torch.tensor([b * T + t for b in range(B) for t in range(pad[b], T)])
            tokens, positions = tokens.reshape(-1)[real], positions.reshape(-1)[real]
        x = F.embedding(tokens, p["wte"]) + F.embedding(positions, p["wpe"])  # (B, T, C), or (R, C) packed
        # last_only (a prefill): the last block at each row's last position alone, as model.ts does on wasm
        last_block = self.cfg["layers"] - 1 if last_only and T > 1 else None
        for l in range(self.cfg["layers"]):
            h = F.layer_norm(x, (C,), p[f"h{l}.ln1.g"], p[f"h{l}.ln1.b"], 1e-5)
            qkv = h @ p[f"h{l}.attn.qkv.w"] + p[f"h{l}.attn.qkv.b"]  # (B, T, 3C)
            if real is not None:
                qkv = torch.zeros(B * T, 3 * C).index_copy_(0, real, qkv).reshape(B, T, 3 * C)
            q, k, v = (t.reshape(B, T, H, D).transpose(1, 2) for t in qkv.split(C, -1))  # (B, H, T, D)
            if cache is not None:
                kc, vc = cache[l]
                kc[:, :, start:start + T] = k
                vc[:, :, start:start + T] = v
                k, v = kc[:, :, :start + T], vc[:, :, :start + T]
            if T == 1:
                # One query (a decoding step): broadcast multiply + sum, as model.ts; torch's CPU
                # batched matmul of (B*H) 1 x D by D x S products is 2x slower.
                att = (q * k).sum(-1).unsqueeze(2) * (1 / math.sqrt(D)) + bias  # (B, H, 1, S)
                y = (att.softmax(-1).transpose(-1, -2) * v).sum(2).reshape(B, 1, C)
            elif l == last_block:
                att = (q[:, :, -1:] @ k.transpose(-1, -2)) * (1 / math.sqrt(D)) + bias[:, :, -1:]  # (B, H, 1, S)
                y = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, 1, C)
                x = self.last_rows(x, T, pad if real is not None else None)
            elif real is not None and start == 0:
                # A packed prefill: each row's attention over its real positions alone, as model.ts'
                # wasm kernels score only the keys a real query sees (here half the time of the padded
                # (B, H, T, T) products below) -> (R, C)
                rows = []
                for b in range(B):
                    s0 = min(pad[b], T)
                    att = (q[b, :, s0:] @ k[b, :, s0:].transpose(-1, -2)) * (1 / math.sqrt(D)) + bias[b if bias.shape[0] > 1 else 0, :, s0:, s0:]
                    rows.append((att.softmax(-1) @ v[b, :, s0:]).transpose(0, 1).reshape(T - s0, C))
                y = torch.cat(rows)
            else:
                att = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(D)) + bias  # (B, H, T, S)
                y = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C)
                if real is not None:
                    y = y.reshape(B * T, C)[real]
            if out_rows is not None and l == self.cfg["layers"] - 1:
                x, y = x.reshape(B * T, C)[out_rows], y.reshape(B * T, C)[out_rows]
            x = x + y @ p[f"h{l}.attn.proj.w"] + p[f"h{l}.attn.proj.b"]
            h2 = F.layer_norm(x, (C,), p[f"h{l}.ln2.g"], p[f"h{l}.ln2.b"], 1e-5)
            m = F.gelu(h2 @ p[f"h{l}.mlp.fc.w"] + p[f"h{l}.mlp.fc.b"], approximate="tanh")  # (B, T, 4C)
            x = x + m @ p[f"h{l}.mlp.proj.w"] + p[f"h{l}.mlp.proj.b"]
        if last_only and last_block is None:
            x = self.last_rows(x, T, pad if real is not None else None)
        elif real is not None and not last_only:
            x = torch.zeros(B * T, C).index_copy_(0, real, x).reshape(B, T, C)
        hf = F.layer_norm(x, (C,), p["lnf.g"], p["lnf.b"], 1e-5)
        return hf @ (p["wte"].t() if self.cfg["tiedHead"] else p["head.w"])


def attention_bias(pad, T, S):
    """model.ts's attentionBias: (B, 1, T, S), the T queries being the last T of S positions; a
    query sees keys at or before itself that are not left padding."""
    q = torch.arange(S - T, S).reshape(1, T, 1)
    s = torch.arange(S).reshape(1, 1, S)
    pads = torch.tensor(pad).reshape(-1, 1, 1)
    return torch.where((s > q) | (s < pads), NEG, 0.0).unsqueeze(1)


def logits_op(req):
    cfg, params = load_weights(req["weights"])
    model = Gpt(cfg, params)
    tokens = torch.tensor(req["tokens"])
    positions = torch.tensor(req["positions"])
    pad = req["pad"]
    B, T = tokens.shape
    with torch.inference_mode():
        prefill = req.get("prefill")
        if prefill is None:
            out = model.forward(tokens, positions, attention_bias(pad, T, T))
        else:
            # The sampler's path: a prefill, then one position per call through the KV cache. Where every
            # row has a real position in the prefill (as a sampler's prompts do), its last position comes
            # from a last_only prefill, whose cache the decoding then reads.
            prompt = (tokens[:, :prefill], positions[:, :prefill], attention_bias(pad, prefill, prefill))
            cache = model.new_cache(B, T)
            parts = [model.forward(*prompt, cache, 0, pad=pad)]
            if max(pad) < prefill:
                cache = model.new_cache(B, T)
                parts = [parts[0][:, :-1], model.forward(*prompt, cache, 0, last_only=True, pad=pad)]
            for s in range(prefill, T):
                parts.append(model.forward(tokens[:, s:s + 1], positions[:, s:s + 1], attention_bias(pad, 1, s + 1), cache, s))
            out = torch.cat(parts, 1)
    return {"shape": list(out.shape), "logits": out.flatten().tolist()}


# ---------------------------------------------------------------------------------------------
# Sampling (sampler.ts with the toy grammar of toy-constraint.ts)

TOY_EOS = 2


class ToyConstraint:
    """toy-constraint.ts: 0 PAD, 1 BOS, 2 EOS, 3..V-1 symbols; minLength..maxLength symbols, never
    the same twice in a row, then EOS. State: [length, last, done]."""

    def __init__(self, vocab, min_length, max_length):
        self.V, self.min, self.max = vocab, min_length, max_length

    def start(self):
        return [0, -1, False]

    def allowed(self, state, mask):
        """Fill `mask` (bytearray(V)) with the allowed set, O(V) like the TS version."""
        length, last, done = state
        mask[:] = bytes(self.V)
        if done:
            return
        if length < self.max:
            mask[3:] = b"\x01" * (self.V - 3)
            if last >= 3:
                mask[last] = 0
        if length >= self.min:
            mask[TOY_EOS] = 1

    def advance(self, state, token):
        length, last, done = state
        if done:
            raise ValueError("toy sentence already ended")
        if token == TOY_EOS and length >= self.min:
            return [length, token, True]
        if token < 3 or token >= self.V or token == last or length >= self.max:
            raise ValueError(f"token {token} is not allowed after {length} symbols (last {last})")
        return [length + 1, token, False]


def sample(model, prompts, grammar, new_tokens, rng, temperature=1.0):
    """sampler.ts's sampleBatch: left-padded rows, per-row positions, KV cache, one draw per live
    row per step from softmax(logits / T) restricted to the grammar's allowed set, rows in order,
    u from the seeded `rng` and the token found by inverse CDF over token ids (drawToken).
    Returns completions, log-probs and the allowed sets (bool (B, steps, V)) per token."""
    B, V = len(prompts), model.cfg["vocab"]
    P = max(len(x) for x in prompts)
    pad = [P - len(x) for x in prompts]
    S = P + new_tokens
    cache = model.new_cache(B, S)
    bias = attention_bias(pad, S, S)  # (B, 1, S, S): rows of it are each step's bias
    pads = torch.tensor(pad).reshape(B, 1)
    tokens = torch.tensor([[0] * pd + list(x) for x, pd in zip(prompts, pad)])
    positions = (torch.arange(P).reshape(1, P) - pads).clamp(min=0)
    states = [grammar.start() for _ in prompts]
    completions = [[] for _ in prompts]
    logprobs = [[] for _ in prompts]
    masks = []
    row_mask = bytearray(V)
    ids = torch.arange(V)
    with torch.inference_mode():
        for i in range(new_tokens):
            done = [st[2] for st in states]
            if all(done):
                break
            if i == 0:
                logits = model.forward(tokens, positions, bias[:, :, :P, :P], cache, 0, last_only=True, pad=pad)
            else:
                s = P + i - 1
                logits = model.forward(tokens, (s - pads).clamp(min=0), bias[:, :, s:s + 1, :s + 1], cache, s)
            # Host side: the grammar's allowed set and one uniform per live row.
            allowed_bytes = bytearray()
            u = []
            for b in range(B):
                grammar.allowed(states[b], row_mask)
                if done[b]:
                    row_mask[0] = 1  # finished rows draw a dummy token, ignored
                allowed_bytes += row_mask
                u.append(0.0 if done[b] else rng.random())
            allowed = torch.frombuffer(allowed_bytes, dtype=torch.uint8).reshape(B, V).bool().to(logits.device)
            logp = (logits[:, 0] / temperature).masked_fill(~allowed, -math.inf).log_softmax(-1)  # (B, V)
            cdf = logp.exp().cumsum(-1)
            token = torch.searchsorted(cdf, torch.tensor(u).reshape(B, 1) * cdf[:, -1:], right=True)
            last_allowed = (allowed * ids).argmax(-1, keepdim=True)
            token = torch.minimum(token, last_allowed)  # u * total at the very top (rounding)
            picked = torch.cat([token.float(), logp.gather(1, token)], 1).tolist()  # the step's one read
            masks.append(allowed)
            for b in range(B):
                if done[b]:
                    continue
                t = int(picked[b][0])
                states[b] = grammar.advance(states[b], t)
                completions[b].append(t)
                logprobs[b].append(picked[b][1])
            tokens = token
    return {"completions": completions, "logprobs": logprobs, "allowed": torch.stack(masks, 1), "done": [st[2] for st in states]}


# ---------------------------------------------------------------------------------------------
# GRPO update (grpo.ts, policy.ts, optimizer.ts)


def group_advantages(rewards, group):
    """grpo.ts's groupAdvantages: (r - mean) / (sample std + 1e-6) per group."""
    out = []
    for g in range(0, len(rewards), group):
        rs = rewards[g:g + group]
        if group == 1:
            out.append(0.0)
            continue
        mean = sum(rs) / group
        std = math.sqrt(sum((r - mean) ** 2 for r in rs) / (group - 1))
        out += [(r - mean) / (std + 1e-6) for r in rs]
    return out


def learning_rate(step, cfg):
    """optimizer.ts's learningRate: linear warm-up, then cosine to minLrRatio."""
    if step < cfg["warmupSteps"]:
        return cfg["lr"] * (step + 1) / cfg["warmupSteps"]
    span = max(1, cfg["totalSteps"] - cfg["warmupSteps"])
    prog = min(1, (step - cfg["warmupSteps"]) / span)
    return cfg["lr"] * (cfg["minLrRatio"] + (1 - cfg["minLrRatio"]) * 0.5 * (1 + math.cos(math.pi * prog)))


class Learner:
    """A policy being trained (policy.ts's Policy): weights, AdamW state, frozen reference."""

    def __init__(self, cfg, params, train, reference=None):
        """reference: the frozen weights of the KL term (default: a copy of `params`)."""
        self.train = train
        self.model = Gpt(cfg, {k: v.clone().requires_grad_(True) for k, v in params.items()})
        self.reference = Gpt(cfg, {k: v.clone() for k, v in (reference or params).items()}) if train["klCoef"] > 0 else None
        ps = list(self.model.p.values())
        # Decoupled weight decay on matrices only, as optimizer.ts; torch's AdamW is the same update
        # (p -= lr (m^ / (sqrt(v^) + eps) + wd p)); the rate is set per step from the schedule.
        self.optimizer = torch.optim.AdamW(
            [{"params": [p for p in ps if p.dim() >= 2], "weight_decay": train["weightDecay"]},
             {"params": [p for p in ps if p.dim() < 2], "weight_decay": 0.0}],
            lr=train["lr"], betas=(train["beta1"], train["beta2"]), eps=train["eps"])
        self.step = 0

    def update(self, samples, rng, micro_batch_size):
        """policy.ts's update: `epochs` passes of shuffled mini-batches, each one AdamW step on the
        token-mean GRPO loss, gradients summed over micro-batches. samples: dicts of prompt,
        completion, logprobs, allowed (bool (n, V)), advantage, temperature. Returns the metrics
        averaged over mini-batches, as UpdateMetrics."""
        cfg = self.train
        samples = [s for s in samples if s["completion"]]
        sums = [0.0] * 7
        steps = 0
        for _ in range(cfg["epochs"]):
            order = list(range(len(samples)))
            rng.shuffle(order)
            for start in range(0, len(order), cfg["miniBatchSize"]):
                mini = [samples[i] for i in order[start:start + cfg["miniBatchSize"]]]
                tokens = sum(len(s["completion"]) for s in mini)
                metrics = torch.zeros(6)
                for m in range(0, len(mini), micro_batch_size):
                    loss, parts = self.loss(mini[m:m + micro_batch_size], tokens)
                    loss.backward()
                    metrics += parts
                # Pre-clip global L2 norm, scaled down to gradClip when above (0 = no clipping), as optimizer.ts.
                grad_norm = torch.nn.utils.clip_grad_norm_(self.model.p.values(), cfg["gradClip"] or math.inf)
                for group in self.optimizer.param_groups:
                    group["lr"] = learning_rate(self.step, cfg)
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.step += 1
                values = torch.cat([metrics, grad_norm.reshape(1)]).tolist()  # one read per mini-batch
                sums = [a + b for a, b in zip(sums, values)]
                steps += 1
        keys = ["loss", "pgLoss", "clipFraction", "dualClipFraction", "kl", "entropy", "gradNorm"]
        return {**{k: v / steps for k, v in zip(keys, sums)}, "lr": learning_rate(self.step - 1, cfg), "steps": steps}

    def loss(self, rows, token_count):
        """grpo.ts's grpoLoss on batch.ts's layout (right-padded, position t predicts t + 1, the
        allowed set as a -1e9 bias), divided by the mini-batch's token count."""
        cfg, V = self.train, self.model.cfg["vocab"]
        N = len(rows)
        T = max(len(r["prompt"]) + len(r["completion"]) for r in rows) - 1
        inputs = torch.zeros(N, T + 1, dtype=torch.long)
        mask = torch.zeros(N, T)
        old = torch.zeros(N, T)
        mask_bias = torch.zeros(N, T, V)
        for n, r in enumerate(rows):
            seq = r["prompt"] + r["completion"]
            inputs[n, :len(seq)] = torch.tensor(seq)
            a, k = len(r["prompt"]) - 1, len(r["completion"])
            mask[n, a:a + k] = 1
            old[n, a:a + k] = torch.tensor(r["logprobs"])
            mask_bias[n, a:a + k] = (~r["allowed"]).float() * NEG
        targets = inputs[:, 1:]
        positions = torch.arange(T).expand(N, T)
        causal = attention_bias([0], T, T)
        temperature = rows[0]["temperature"]
        adv = torch.tensor([r["advantage"] for r in rows]).reshape(N, 1)

        # The scored positions alone (M of the N * T), as policy.ts does on wasm (scoredPositions).
        rows_at = mask.reshape(-1).nonzero().squeeze(1)
        mask_bias, targets, old, mask = (t.reshape(N * T, *t.shape[2:])[rows_at] for t in (mask_bias, targets, old, mask))
        adv = adv.expand(N, T).reshape(N * T)[rows_at]

        def token_logp(model):
            z = model.forward(inputs[:, :-1], positions, causal, out_rows=rows_at) / temperature + mask_bias  # (M, V)
            log_sm = z.log_softmax(-1)
            return log_sm.gather(-1, targets.unsqueeze(-1)).squeeze(-1), log_sm

        logp, log_sm = token_logp(self.model)
        ratio = (logp - old).exp()
        l1 = -adv * ratio
        l2 = -adv * ratio.clamp(1 - cfg["clipLow"], 1 + cfg["clipHigh"])
        lc = torch.maximum(l1, l2)
        l3 = -adv * cfg["dualClip"]
        negative = (adv < 0).expand_as(lc)
        pg = torch.where(negative, torch.minimum(lc, l3), lc)
        if self.reference is not None and cfg["klCoef"] != 0:
            with torch.no_grad():
                ref, _ = token_logp(self.reference)
            d = ref - logp
            kl = (d.exp() - d - 1).clamp(-10, 10)
        else:
            kl = torch.zeros_like(logp)
        denom = max(1, token_count)
        pg_loss = (pg * mask).sum() / denom
        kl_mean = (kl * mask).sum() / denom
        loss = pg_loss + cfg["klCoef"] * kl_mean
        with torch.no_grad():
            entropy = -(log_sm.exp() * log_sm).sum(-1)
            parts = torch.stack([loss, pg_loss, ((l2 > l1).float() * mask).sum() / denom,
                                 ((negative & (lc > l3)).float() * mask).sum() / denom, kl_mean, (entropy * mask).sum() / denom])
        return loss, parts


def samples_from_request(raw, vocab):
    """GrpoSample objects of the TS side (masks packed 8 per byte, low bit first) -> update rows."""
    out = []
    for s in raw:
        n = len(s["completion"])
        packed = torch.tensor(s["masks"], dtype=torch.uint8).reshape(n, -1)
        bits = (packed.unsqueeze(-1) >> torch.arange(8, dtype=torch.uint8)) & 1  # (n, W, 8)
        out.append({**s, "logprobs": s["logProbs"], "allowed": bits.reshape(n, -1)[:, :vocab].bool()})
    return out


def update_op(req):
    cfg, params = load_weights(req["weights"])
    reference = load_weights(req["reference"])[1] if req.get("reference") else None
    learner = Learner(cfg, params, req["train"], reference)
    samples = samples_from_request(req["samples"], cfg["vocab"])
    metrics = learner.update(samples, random.Random(req.get("seed", 0)), req.get("microBatchSize", req["train"]["microBatchSize"]))
    if req.get("out"):
        # The updated weights, float32 little-endian in parameter order (a data file without header).
        flat = array.array("f", torch.cat([p.detach().flatten() for p in learner.model.p.values()]).tolist())
        if sys.byteorder != "little":
            flat.byteswap()
        with open(req["out"], "wb") as f:
            flat.tofile(f)
    return metrics


# ---------------------------------------------------------------------------------------------
# Benchmark (bench-workload.ts's runPolicyBench)


def blas_library():
    """The BLAS torch's matmuls run on, by the shared library mapped into this process: Debian's
    python3-torch takes whatever libblas.so.3 the system provides (reference BLAS, OpenBLAS...)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if line.rstrip().endswith(".so") or ".so." in line}
    except OSError:
        return None
    names = [os.path.realpath(p) for p in sorted(paths)]
    for key in ("openblas", "mkl", "blis", "blas"):
        hit = next((p for p in names if key in os.path.basename(p)), None)
        if hit:
            return hit
    return None


def set_threads(n):
    """torch's intra-op threads, and OpenBLAS's own pool (torch only sets MKL's)."""
    torch.set_num_threads(n)
    blas = blas_library()
    if blas and "openblas" in blas:
        ctypes.CDLL(blas).openblas_set_num_threads(n)


def bench_once(cfg, params, req, threads, reps, warmups=1, device="cpu"):
    """device: "cpu", or "cuda" (torch >= 2.0: every new tensor made there, synchronised before each clock read)."""
    if device == "cpu":
        return bench_on(cfg, params, req, threads, reps, warmups, lambda: None)
    torch.set_default_device(device)
    try:
        return {**bench_on(cfg, {k: v.to(device) for k, v in params.items()}, req, threads, reps, warmups, torch.cuda.synchronize), "device": torch.cuda.get_device_name()}
    finally:
        torch.set_default_device("cpu")


def bench_on(cfg, params, req, threads, reps, warmups, sync):
    set_threads(threads)
    w = req["workload"]
    toy = w["toy"]
    grammar = ToyConstraint(toy["vocab"], toy["minLength"], toy["maxLength"])
    learner = Learner(cfg, params, req["train"])
    micro = req.get("microBatchSize", req["train"]["microBatchSize"])
    rng = random.Random(1)
    rates, cpu_rates, update_ms, update_cpu_ms = [], [], [], []
    for rep in range(1 - warmups, reps + 1):  # reps <= 0: untimed warm-ups
        t0, c0 = time.perf_counter(), time.process_time()
        sampled = sample(learner.model, w["samplePrompts"], grammar, w["newTokens"], rng)
        seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
        count = sum(len(c) for c in sampled["completions"])
        long = sample(learner.model, w["updatePrompts"], grammar, w["newTokens"], rng)
        adv = group_advantages([i % 2 for i in range(len(w["updatePrompts"]))], 8)
        samples = [{"prompt": p, "completion": c, "logprobs": lp, "allowed": long["allowed"][b, :len(c)], "advantage": adv[b], "temperature": 1.0}
                   for b, (p, c, lp) in enumerate(zip(w["updatePrompts"], long["completions"], long["logprobs"]))]
        t0, c0 = time.perf_counter(), time.process_time()
        learner.update(samples, rng, micro)
        sync()
        ms, cpu_ms = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
        if rep > 0:
            rates.append(count / seconds)
            cpu_rates.append(count / cpu_seconds)
            update_ms.append(ms)
            update_cpu_ms.append(cpu_ms)
    med = statistics.median
    return {"threads": threads, "sampleTokPerS": med(rates), "sampleTokPerCpuS": med(cpu_rates), "updateMs": med(update_ms), "updateCpuMs": med(update_cpu_ms)}


def bench_op(req):
    cfg, params = load_weights(req["weights"])
    default_threads = torch.get_num_threads()
    runs = [bench_once(cfg, params, req, r["threads"], r["reps"], r.get("warmups", 1), r.get("device", "cpu")) for r in req["runs"]]
    return {"torch": torch.__version__, "blas": blas_library(), "defaultThreads": default_threads, "cores": len(os.sched_getaffinity(0)), "runs": runs}


OPS = {"logits": logits_op, "update": update_op, "bench": bench_op}


def handle(request):
    op = OPS.get(request.get("op"))
    if op is None:
        raise SystemExit(f"unknown op {request.get('op')!r}: use one of {', '.join(OPS)}")
    return op(request)


if __name__ == "__main__":
    request = json.load(sys.stdin)
    # A list of requests is answered by a list of replies: one interpreter start (torch's import) for all.
    json.dump([handle(r) for r in request] if isinstance(request, list) else handle(request), sys.stdout)
    sys.stdout.write("\n")
