"""The reference's data path, without GPUs (verl-dry-run.test.ts): `python3 dry_run.py < payload.json`.

Walks what ZJU-REAL/Code-A1 does with an export, with the same column access and batch layout and
no torch, verl or vLLM (which this machine lacks): main_a1.py loads the YAML (OmegaConf) and
derives model B's config; verl's RLHFDataset.__getitem__ reads each row; ACGRayTrainer repeats the
batch per code for model B's prompts; ACGRewardManager scores each (code, suite) pair through
`compute_score` and updates the Mistake Book; `_validate` runs `test` on `extra_info.function_name`.
The README's patch lines are run as they are, in stand-ins for reward.py and trainer_a1.py.

What the reference's sandbox would return for each code and suite is in the payload (the arena's
TypeScript grader computed it from the same lines); this driver returns the rewards and the book.
"""
import copy
import json
import os
import socket
import sys
import types


def chat(messages):
    # Any chat template: what matters is the access (a list of {role, content} dicts).
    return "".join("<|%s|>%s" % (m["role"], m["content"]) for m in messages) + "<|assistant|>"


def load_configs(yaml_path, prefix):
    """main_a1.py main(): OmegaConf.load, prefix from $PREFIX, resolve, then model B's overrides."""
    from omegaconf import OmegaConf, open_dict

    config_a = OmegaConf.load(yaml_path)
    OmegaConf.set_struct(config_a, True)
    with open_dict(config_a):
        config_a.prefix = prefix
    OmegaConf.resolve(config_a)
    config_b = copy.deepcopy(config_a)
    OmegaConf.set_struct(config_b, True)
    with open_dict(config_b):
        if OmegaConf.select(config_b, "other.data.max_prompt_length"):
            config_b.data.max_prompt_length = config_b.other.data.max_prompt_length
        config_b.actor_rollout_ref.model.path = config_b.other.actor_rollout_ref.model.path
        if OmegaConf.select(config_b, "other.actor_rollout_ref.rollout.n"):
            config_b.actor_rollout_ref.rollout.n = config_b.other.actor_rollout_ref.rollout.n
        config_b.trainer.rollout_data_dir = config_b.other.trainer.rollout_data_dir
        config_b.trainer.validation_data_dir = config_b.other.trainer.validation_data_dir
        if OmegaConf.select(config_b, "other.trainer.n_gpus_per_node"):
            config_b.trainer.n_gpus_per_node = config_b.other.trainer.n_gpus_per_node
        config_b.trainer.default_local_dir = config_b.other.trainer.default_local_dir
        config_b.update_n = config_b.actor_rollout_ref.rollout.n
        if OmegaConf.select(config_b, "other.update_n"):
            config_b.update_n = config_b.other.update_n
    return config_a, config_b


def get_item(row, prompt_key="prompt"):
    """verl RLHFDataset.__getitem__'s column access (no processor)."""
    row_dict = dict(row)
    messages = row_dict.pop(prompt_key)
    assert isinstance(messages, list) and all(set(m) == {"role", "content"} for m in messages), messages
    row_dict["raw_prompt"] = chat(messages)
    extra = row_dict.get("extra_info", {})
    row_dict["index"] = extra.get("index", 0)
    row_dict["tools_kwargs"] = extra.get("tools_kwargs", {})
    row_dict["interaction_kwargs"] = extra.get("interaction_kwargs", {})
    return row_dict


def collate(items):
    """verl's collate_fn for the non-tensor columns: one list per key."""
    return {k: [it[k] for it in items] for k in items[0]}


def extract_code(response):
    """The first ```python block, as reward.py extract_code_from_response takes it."""
    if "```python" in response and "```" in response.split("```python")[1]:
        return response.split("```python")[1].split("```", 1)[0].strip("\n")
    return response.strip("\n")


def reference_modules(patch_reward, patch_trainer):
    """Stand-ins for reward.py and trainer_a1.py with the names the patch rebinds, the patch lines
    appended and run as the README appends them."""
    reward = types.ModuleType("reward")
    reward.compute_dual_model_reward = None  # the reference's, replaced by the patch
    reward.update_mistake_book = None
    exec(patch_reward, reward.__dict__)

    trainer = types.ModuleType("trainer_a1")
    sys.modules["trainer_a1"] = trainer
    exec(
        "class MistakeBook:\n"
        "    def __init__(self, d, step):\n"
        "        raise AssertionError('the reference MistakeBook was built: the patch did not take')\n"
        "class ACGRayTrainer:\n"
        "    def __init__(self, config_a):\n"
        "        self.config_a = config_a\n"
        "        self.global_steps = 0\n"
        "    def fit(self):\n"
        "        # trainer_a1.py fit(): the book lives in model A's rollout dir\n"
        "        if self.config_a.get('mistake_book', None):\n"
        "            self.mistake_book = MistakeBook(self.config_a.trainer.get('rollout_data_dir', None), self.global_steps)\n",
        trainer.__dict__,
    )
    exec(patch_trainer, trainer.__dict__)
    return reward, trainer


def main():
    p = json.load(sys.stdin)
    sys.path.insert(0, p["module_dir"])
    import arena_reward as ar

    os.environ["ARENA_OUT"] = p["out"]
    config_a, config_b = load_configs(p["yaml"], p["prefix"])
    report = {
        "train_files": config_a.data.train_files, "val_files": config_a.data.val_files,
        "rollout_dir": config_a.trainer.rollout_data_dir, "b_rollout_dir": config_b.trainer.rollout_data_dir,
        "checkpoints": [config_a.trainer.default_local_dir, config_b.trainer.default_local_dir],
        "n_a": config_a.actor_rollout_ref.rollout.n, "n_b": config_b.actor_rollout_ref.rollout.n, "update_n": config_b.update_n,
        "gpus": [config_a.trainer.nnodes * config_a.trainer.n_gpus_per_node, config_b.trainer.nnodes * config_b.trainer.n_gpus_per_node],
        "val_n": config_a.actor_rollout_ref.rollout.val_kwargs.n,
    }
    reward_kwargs = dict(config_a.reward_model.get("reward_kwargs", {}))

    reward, trainer_mod = reference_modules(p["patch_reward"], p["patch_trainer"])
    assert reward.compute_dual_model_reward is ar.compute_dual_model_reward
    trainer = trainer_mod.ACGRayTrainer(config_a)
    trainer.fit()
    book = trainer.mistake_book
    report["book_class"] = type(book).__name__
    report["book_top_k"] = book.top_k

    n_a, n_b = report["n_a"], report["n_b"]
    steps = []
    for st in p["steps"]:
        # 1. The dataloader's batch: RLHFDataset rows, collated.
        batch = collate([get_item(p["train_rows"][i]) for i in st["rows"]])
        # 2. Model A's codes; model B's prompts: the batch repeated per code (repeat(n_a, interleave=True)).
        codes = [extract_code(r) for r in st["a_responses"]]
        rep = {k: [v for v in vals for _ in range(n_a)] for k, vals in batch.items()}
        for i, code in enumerate(codes):
            assert rep["clean_description"][i] and code is not None
            assert rep["extra_info"][i].get("tools_kwargs", {}) == {}
        # 3. ACGRewardManager.__call__: the Code-A1 branch, keyed by data_source.
        assert rep["data_source"][0] == "kodcode_light", rep["data_source"][0]
        assert all(rep["GT_code"])
        question_ids = list(dict.fromkeys(info.get("question_id", "") for info in rep["extra_info"]))
        per_q = len(codes) // len(question_ids)
        shown = []
        for qid in question_ids:
            shown.append(book.get_attack_testcases(qid, max_count=8))  # get_attack_testcases_from_mistake_book
        sb = st["sandbox"]
        n_b2 = len(sb["suites"])
        reward_a, reward_b, tmp = [0.0] * len(codes), [], []
        for b2 in range(n_b2):
            a_idx = b2 // (n_b2 // len(codes))
            s = sb["suites"][b2]
            r = reward.compute_dual_model_reward(
                is_code_valid=sb["code_valid"][a_idx], gt_passed=-1, gt_total=-1, gt_failed_msgs=[],
                valid_generated_tests=s["valid_tests"], invalid_count=s["invalid"], total_generated_count=s["total"],
                gen_passed=s["passed"], gen_failed_msgs=s["failed_msgs"], test_phase="adversarial",
                test_nonprintable_ratio=0.0, test_space_ratio=0.0, test_nonrelated_ratio=0.0, test_overlong_ratio=0.0, code_nonrelated_ratio=0.0,
                attack_gen_passed=len(sb["attack_passed"][a_idx]), attack_gen_total=sb["attack_total"][a_idx],
                **reward_kwargs,
            )
            tmp.append(r["reward_a"])
            if len(tmp) == n_b2 // len(codes):
                reward_a[a_idx] = sum(tmp) / len(tmp)
                tmp = []
            reward_b.append(r["reward_b"])
        reward.update_mistake_book(
            book, question_ids=question_ids, n_samples_a=per_q, n_samples_b=n_b2 // len(codes),
            generated_code_list=codes, is_code_valid_list=sb["code_valid"],
            attack_gen_total=sb["attack_total"], attack_gen_passed_tcs=sb["attack_passed"],
            gen_adv_total_phase2=[len(s["valid_tests"]) for s in sb["suites"]], gen_adv_passed_phase2=[s["passed"] for s in sb["suites"]],
            gen_failed_tcs_phase2=[s["failed_tests"] for s in sb["suites"]],
        )
        book.save(st["step"])
        with open(os.path.join(config_a.trainer.rollout_data_dir, socket.gethostname(), "mistake_book_step_%d.json" % st["step"])) as f:
            saved = json.load(f)
        steps.append({"codes": codes, "question_ids": question_ids, "shown": shown, "reward_a": reward_a, "reward_b": reward_b, "book": saved})
    report["steps"] = steps

    # 4. _validate's column access: `test` and extra_info.function_name; the reference solution passes its check.
    passed = 0
    for row in p["val_rows"]:
        item = get_item(row)
        env = {}
        exec(item["GT_code"] + "\n" + item["test"], env)
        env["check"](env[item["extra_info"]["function_name"]])
        passed += 1
    report["val_passed"] = passed
    sys.stdout.write(json.dumps(report))


if __name__ == "__main__":
    main()
