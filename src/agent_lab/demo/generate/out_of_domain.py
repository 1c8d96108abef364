"""Utterances no demo event fits: expected ``unknown_event``."""

__all__ = ["OUT_OF_DOMAIN"]

OUT_OF_DOMAIN = [
    "tell me a joke", "what's the capital of France", "who won the football game last night",
    "order a large pepperoni pizza", "how do I make pancakes", "translate good morning into Spanish",
    "what's 17 times 23", "find a good sushi restaurant nearby", "how tall is the Eiffel Tower",
    "recommend a good book", "what's the meaning of life", "how do I get to the train station",
    "call a taxi", "what's my bank balance", "read me the news", "how old is the universe",
    "write a poem about autumn", "what does photosynthesis mean", "who painted the Mona Lisa",
    "is a tomato a fruit", "how do I reset my router", "what's the best way to learn Spanish",
    "give me a recipe for lasagna", "how many people live in Japan", "what time zone is Chicago in",
    "explain quantum computing simply", "what's a good name for a cat", "help me with my homework",
    "spell necessary", "how do you say thank you in Japanese", "flip a coin", "roll a dice",
    "what's the square root of 144", "track my package", "find my phone", "what's on TV tonight",
    "book a flight to Rome", "book a table for two at an Italian place", "play chess with me",
    "can you play a game with me", "who is the president of France", "do you have feelings",
    "what's the population of Oslo", "what year did the Berlin wall fall", "open the garage door app",
    "what's the tallest mountain in Europe", "suggest a gift for my sister", "how many calories are in an apple",
    "summarize this article for me", "what's the difference between a virus and bacteria", "sing me a song",
    "what's the weather on Mars", "how far is the moon", "check my email", "what should I cook tonight",
]  # fmt: skip
