"""The evaluation suite of tutorial 09 (also used to record its cassette)."""

from workbench.evals import EvalCase, EvalSuite

WEATHER = "get_weather"

SUITE = EvalSuite("weather", tools=["weather_tools:get_weather", "weather_tools:book_flight"], cases=[
    EvalCase("paris", prompt="What's the weather in Paris?",
             expect_calls=[{"name": WEATHER, "arguments": {"city": ["Paris", "Paris, FR"], "units": ["metric", ""]}}]),
    EvalCase("rome-imperial", prompt="How warm is it in Rome, in Fahrenheit?",
             expect_calls=[{"name": WEATHER, "arguments": {"city": ["Rome"], "units": ["imperial"]}}]),
    EvalCase("two-cities", prompt="Weather in Oslo and in Bergen?",
             expect_calls=[{"name": WEATHER, "arguments": {"city": ["Bergen"]}},
                           {"name": WEATHER, "arguments": {"city": ["Oslo"]}}]),
    EvalCase("flight", prompt="Book 2 seats from Paris to Lisbon.",
             expect_calls=[{"name": "book_flight", "arguments": {"origin": ["Paris"], "destination": ["Lisbon"],
                                                                  "passengers": [2]}}]),
    EvalCase("lyon-typo", prompt="Weather in Lyon please",
             expect_calls=[{"name": WEATHER, "arguments": {"city": ["Lyon"]}}]),
    EvalCase("joke", prompt="Tell me a joke about the weather.", expect_no_call=True),
    EvalCase("hello", prompt="Hello!", expect_no_call=True),
])
