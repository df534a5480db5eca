"""The generative environment simulator: tasks drawn from a trainable environment policy
(parametric knob distribution or an LLM), scored with the agent reward, recorded for replay."""
