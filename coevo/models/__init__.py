"""The model runtime: everything that loads, decodes, syncs or converts a local model, for the
agent policies (client/policies), the simulator's LLM environment policy, the trainers and the
integrations alike. One concept per module, heavy libraries imported only where used:

- checkpoints: the default model (SmolLM2-135M converted from its GGUF), resolve_model, cache
- special_tokens / tiny / tokenizers / loading: declared tokens, tiny test models, chat tokenizers,
  a checkpoint loaded with transformers
- registry (+ data/backends.json): the table of generation backends and the engine choice
- llamacpp_engine, vllm_engine: the engines behind those backends; gguf_export: weight sync to GGUF
- text_generators: seeded chat completions (local transformers or an OpenAI-compatible endpoint)
"""
