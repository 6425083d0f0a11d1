"""A Bid Euchre bot whose policy is a small numpy MLP, trained by imitating the rule-based
``bid-euchre-basic`` bot in ``arena.envs`` and served through the SDK; see README.md."""
