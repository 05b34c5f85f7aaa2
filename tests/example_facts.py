"""Example facts the tests store or ingest: short, distinct sentences, one claim each."""

GEOGRAPHY = (
    "The Volga is the longest river in Europe.",
    "Mount Elbrus is the highest mountain of the Caucasus.",
    "Lake Baikal is the deepest lake on Earth.",
    "The Danube flows through ten countries.",
    "Iceland has more than one hundred volcanoes.",
    "The Sahara is the largest hot desert in the world.",
    "The Amazon carries more water than any other river.",
    "Greenland is the largest island that is not a continent.",
    "The Mariana Trench is the deepest known part of the ocean.",
    "Mount Everest rises on the border of Nepal and China.",
    "The Nile flows north into the Mediterranean Sea.",
    "Lake Superior is the largest of the Great Lakes by area.",
    "The Atacama is one of the driest places on Earth.",
    "Mount Kilimanjaro is the highest mountain in Africa.",
    "The Rhine rises in the Swiss Alps.",
    "Australia is the smallest continent by land area.",
    "The Dead Sea lies far below sea level.",
    "The Yangtze is the longest river in Asia.",
)

# Short claims on different topics.
MIXED = (
    "The Volga flows into the Caspian Sea",
    "Basalt is an igneous rock",
    "Mercury is the closest planet to the Sun",
    "The heart pumps blood through the body",
    "Copper conducts electricity well",
    "The Danube flows through Vienna",
)
