"""The one envelope around the decision: what plain code answers for a turn, for every caller.

The gateway, the three framework wrappers and log replay each hold a
conversation and the tools a request offers; each builds an ``Answerer``
once and asks it turn after turn. It applies the learned rules, decides,
tells the turn after local calls from the user's, honours ``tool_choice``
and ``parallel_tool_calls``, makes the calls once (``LocalCall``), says
declared replies, asks for what only the user can supply, and returns the
local answer or the rule that leaves the turn to the model (``Forward``).
"""

from agent_lab.answering.answerer import Answerer
from agent_lab.answering.answers import (
    LOCAL_CALL_PREFIX,
    Forward,
    LocalAnswer,
    LocalCall,
    is_local_call,
    local_calls,
)
from agent_lab.answering.asked import Asked, ToolChoiceMode, well_formed
from agent_lab.answering.replies import REPLY_REASON
from agent_lab.answering.words import question, refusal

__all__ = [
    "LOCAL_CALL_PREFIX",
    "REPLY_REASON",
    "Answerer",
    "Asked",
    "Forward",
    "LocalAnswer",
    "LocalCall",
    "ToolChoiceMode",
    "is_local_call",
    "local_calls",
    "question",
    "refusal",
    "well_formed",
]
