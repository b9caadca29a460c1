"""The review page: one panelist working through a run's mistakes (queue,
image, facts, vote buttons, help) and its controller (`review_bridge`)."""
