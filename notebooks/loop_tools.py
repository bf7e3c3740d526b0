"""Tools for the models-in-the-loop tutorial (notebooks/08_models_in_the_loop.ipynb): a fixed weather
table and a packing list, so every run is the same and needs no network."""

from __future__ import annotations

from typing import Literal

from workbench import tool

_WEATHER = {"oslo": (4.0, True), "lisbon": (19.0, False), "cairo": (31.0, False), "bergen": (7.0, True)}


@tool
def weather(city: str, units: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
    """Today's weather in a city: temperature and whether it rains.

    Args:
        city: The city, e.g. "Oslo".
        units: Temperature units.
    """
    key = city.strip().lower()
    if key not in _WEATHER:
        raise ValueError(f"no weather for {city!r}; known: {', '.join(sorted(c.title() for c in _WEATHER))}")
    celsius, rain = _WEATHER[key]
    temperature = celsius if units == "celsius" else round(celsius * 9 / 5 + 32, 1)
    return {"city": city.strip().title(), "temperature": temperature, "units": units, "rain": rain}


@tool
def packing_list(temperature_c: float, rain: bool = False) -> list[str]:
    """What to pack for a day out.

    Args:
        temperature_c: The day's temperature in degrees Celsius.
        rain: Whether it rains.
    """
    items = ["water"]
    items.append("coat" if temperature_c < 10 else "jumper" if temperature_c < 20 else "sun hat")
    if rain:
        items.append("umbrella")
    return items
