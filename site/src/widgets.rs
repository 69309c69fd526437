//! Every widget kind, declared once: its name (the `data-widget` value), its title, what it
//! shows and the data attributes it reads.
//!
//! The web layer's registry (`web::widgets::registry()`) pairs each of these with the code that
//! mounts it (`WidgetKind { doc: &ATTENTION, mount }`), so a kind's name and title are typed
//! nowhere else; the page generator reads the same entries for the placeholders, the home
//! page's cards and the catalogue's text. `tests/widget_docs.rs` checks that README's widget
//! table lists the same kinds with the same attributes, and the browser tests that every kind
//! here is registered once. Plain data, so native tests and the build can read it.

use atencao_core::widget_input::NumberRange;

/// One widget kind, as an author embedding it needs to know it.
pub struct WidgetDoc {
    /// The `data-widget` value.
    pub name: &'static str,
    /// Its heading on the page, on the home page's cards and in the catalogue (notation
    /// written as `W^Q`, typeset where it is drawn).
    pub title: &'static str,
    /// What the reader sees and can do (Portuguese). Only with `texts` (the catalogue and the
    /// page generator): no other build shows it, so its wasm leaves it out.
    #[cfg(feature = "texts")]
    pub summary: &'static str,
    /// The data attributes it reads besides `data-widget`.
    pub attributes: &'static [AttributeDoc],
    /// The attributes of the catalogue's live example and snippet (none: the widget's
    /// default, which is the article's own example).
    #[cfg(feature = "texts")]
    pub example: &'static [(&'static str, &'static str)],
}

/// One data attribute of a widget: declared once, here. Its `kind` is what the widget's
/// parsing follows (`web::kit::attributes`): a choice outside the list, a number out of range
/// or a flag that is neither on nor off gets the default and a warning; text and data are the
/// widget's to read. The catalogue shows `meaning` and `values`.
pub struct AttributeDoc {
    pub name: &'static str,
    /// What it sets (Portuguese). Like `values`, only with `texts` (the catalogue's table).
    #[cfg(feature = "texts")]
    pub meaning: &'static str,
    /// The values it accepts, default first or marked "padrão" (Portuguese, for authors).
    #[cfg(feature = "texts")]
    pub values: &'static str,
    pub kind: AttrKind,
}

/// What an attribute's value is.
#[derive(Clone, Copy, Debug)]
pub enum AttrKind {
    /// One of `values`; `default` when absent or unknown.
    Choice { values: &'static [&'static str], default: &'static str },
    /// A number in a range (clamped, snapped to its step).
    Number(NumberRange),
    /// A whole number whose bounds depend on the widget's other settings (a document of the
    /// chosen corpus): the widget gives the range when it reads it.
    Index,
    /// On or off (absent: off).
    Flag,
    /// Text or data the widget reads itself (a corpus, JSON matrices, a prompt, a folder).
    Text,
}

// Each attribute is declared once, texts included; without `texts` they are dropped here.
#[cfg_attr(not(feature = "texts"), allow(unused_variables))]
const fn attr(name: &'static str, meaning: &'static str, values: &'static str) -> AttributeDoc {
    AttributeDoc { name, #[cfg(feature = "texts")] meaning, #[cfg(feature = "texts")] values, kind: AttrKind::Text }
}

#[cfg_attr(not(feature = "texts"), allow(unused_variables))]
const fn choice(name: &'static str, meaning: &'static str, values: &'static str, choices: &'static [&'static str], default: &'static str) -> AttributeDoc {
    AttributeDoc { name, #[cfg(feature = "texts")] meaning, #[cfg(feature = "texts")] values, kind: AttrKind::Choice { values: choices, default } }
}

#[cfg_attr(not(feature = "texts"), allow(unused_variables))]
const fn number(name: &'static str, meaning: &'static str, values: &'static str, range: NumberRange) -> AttributeDoc {
    AttributeDoc { name, #[cfg(feature = "texts")] meaning, #[cfg(feature = "texts")] values, kind: AttrKind::Number(range) }
}

#[cfg_attr(not(feature = "texts"), allow(unused_variables))]
const fn index(name: &'static str, meaning: &'static str, values: &'static str) -> AttributeDoc {
    AttributeDoc { name, #[cfg(feature = "texts")] meaning, #[cfg(feature = "texts")] values, kind: AttrKind::Index }
}

#[cfg_attr(not(feature = "texts"), allow(unused_variables))]
const fn flag(name: &'static str, meaning: &'static str, values: &'static str) -> AttributeDoc {
    AttributeDoc { name, #[cfg(feature = "texts")] meaning, #[cfg(feature = "texts")] values, kind: AttrKind::Flag }
}

impl WidgetDoc {
    /// The declaration of attribute `name` (None: the widget does not read it).
    pub fn attribute(&self, name: &str) -> Option<&'static AttributeDoc> {
        self.attributes.iter().find(|a| a.name == name)
    }
}

/// The corpora of the vectorization article (ids of `core::examples::ARTICLE_CORPORA`).
const CORPUS_IDS: &[&str] = &[
    "gato-telhado", "joao-maria", "carro", "filme", "bow", "pequeno-gato", "tres-documentos", "cachorro-log", "python-java", "aumentada", "detalhado", "busca",
];
/// The corpora of the sequence articles (ids of `core::sequence::presets::NGRAM_PRESETS`).
const NGRAM_IDS: &[&str] = &["tres-comandos", "oito-documentos"];

const fn corpus_preset(default: &'static str) -> AttributeDoc {
    choice(
        "data-preset",
        "corpus de um dos artigos",
        "gato-telhado, joao-maria, carro, filme, bow, pequeno-gato, tres-documentos, cachorro-log, python-java, aumentada, detalhado, busca",
        CORPUS_IDS,
        default,
    )
}

const fn ngram_preset(default: &'static str, meaning: &'static str, values: &'static str) -> AttributeDoc {
    choice("data-preset", meaning, values, NGRAM_IDS, default)
}

const MODEL: AttributeDoc = attr(
    "data-model",
    "pasta dos arquivos do modelo (config.json, tokenizer.json, …), relativa à página",
    "padrão: static/model/ do próprio site",
);
const CORPUS: AttributeDoc = attr(
    "data-corpus",
    "documentos da própria página, um por linha (ou uma lista JSON de textos); vira o primeiro corpus da lista",
    "texto",
);
const TF_VARIANT: AttributeDoc = choice(
    "data-tf",
    "variante de TF",
    "normalized (padrão), raw, log, binary, aug, k, log-smooth, length",
    &["normalized", "raw", "log", "binary", "aug", "k", "log-smooth", "length"],
    "normalized",
);
const IDF_VARIANT: AttributeDoc = choice(
    "data-idf",
    "variante de IDF",
    "basic (padrão), plus1, probabilistic, max, smooth",
    &["basic", "plus1", "probabilistic", "max", "smooth"],
    "basic",
);
const LOG_BASE: AttributeDoc = choice("data-base", "base do logaritmo", "e (padrão), 10, 2", &["e", "10", "2"], "e");
const VOTE_PRESET: AttributeDoc = choice(
    "data-preset",
    "corpus dos votos",
    "log-programa-bateria (padrão), log-ele-ela, cinco-documentos",
    &["log-programa-bateria", "log-ele-ela", "cinco-documentos"],
    "log-programa-bateria",
);
const VOTE_SENTENCE: AttributeDoc = index("data-sentence", "qual frase de teste do corpus (a partir de 0)", "0 (padrão), 1, …");
const VOTE_KEEP: AttributeDoc =
    attr("data-keep", "palavras, separadas por espaço, que começam ligadas (as outras começam em 0)", "padrão: todas ligadas");

pub static ATTENTION: WidgetDoc = WidgetDoc {
    name: "attention",
    title: "Atenção com Q, K e V",
    #[cfg(feature = "texts")]
    summary: "X, W^Q, W^K e W^V editáveis (padrão: o Exemplo 2 da autoatenção) → Q, K, V, scores QKᵀ/√d_k, pesos do softmax e saída; máscara causal; barras com os pesos de uma consulta.",
    attributes: &[
        choice("data-preset", "exemplo inicial", "exemplo-2 (padrão: o Exemplo 2 da autoatenção), prestando-e5 (as três palavras de «Prestando atenção»)", &["exemplo-2", "prestando-e5"], "exemplo-2"),
        flag("data-causal", "começa com a máscara causal ligada", "true"),
        attr("data-matrices", "matrizes próprias em JSON; as ausentes vêm do exemplo", r#"{"x": [[1, 0], [0, 1]], "w_q": …, "w_k": …, "w_v": …}, até 12 tokens"#),
    ],
    #[cfg(feature = "texts")]
    example: &[("data-matrices", r#"{"x": [[1, 0], [0, 1]], "w_q": [[0, 0], [0, 0]], "w_k": [[0, 0], [0, 0]], "w_v": [[1, 2], [3, 4]]}"#)],
};

pub static MASKED_SOFTMAX: WidgetDoc = WidgetDoc {
    name: "masked-softmax",
    title: "Máscara causal e softmax",
    #[cfg(feature = "texts")]
    summary: "Scores editáveis, a máscara causal somada como −∞ acima da diagonal (hachurada) e o softmax de cada linha (padrão: o exemplo de máscara de «Explicando Transformers»).",
    attributes: &[attr("data-matrices", "scores próprios em JSON (linha = consulta, coluna = chave)", r#"{"scores": [[…], …]}, quadrada, até 10 × 10"#)],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static SOFT_DICTIONARY: WidgetDoc = WidgetDoc {
    name: "soft-dictionary",
    title: "Dicionário suave: busca rígida e busca suave",
    #[cfg(feature = "texts")]
    summary: "Atenção como dicionário suave: chaves, valores e uma consulta editáveis; os scores q·kᵢ, os pesos softmax(β·q·kᵢ/√d) de 0 a 1, a busca suave Σ wᵢvᵢ ao lado da busca rígida (o valor da melhor chave) e, para vários β, os pesos e a distância entre as duas (padrão: as chaves, os valores e a consulta q₂ do Exemplo 2).",
    attributes: &[attr("data-matrices", "dicionário próprio em JSON (chaves, seus valores e a consulta)", r#"{"keys": [[…], …], "values": [[…], …], "query": [[…]]}, até 8 entradas"#)],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static GRADIENT_CHECK: WidgetDoc = WidgetDoc {
    name: "gradient-check",
    title: "Verificador de gradientes: fórmula contra diferenças finitas",
    #[cfg(feature = "texts")]
    summary: "A jacobiana do softmax e os gradientes de um passo de atenção (L = Σ O ⊙ G em relação a Q, K e V) pela fórmula e por diferenças centrais, lado a lado, com o passo h de 10⁻¹ a 10⁻¹⁰, em f64 ou f32; ou o decodificador inteiro, tensor por tensor, num texto digitado (em f32); o maior erro relativo e a curva do erro contra h.",
    attributes: &[choice(
        "data-part",
        "o que verificar",
        "atencao (padrão: o passo de atenção), softmax (a jacobiana), modelo (o decodificador inteiro, tensor por tensor)",
        &["atencao", "softmax", "modelo"],
        "atencao",
    )],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static DECODER: WidgetDoc = WidgetDoc {
    name: "decoder",
    title: "O decodificador pré-treinado",
    #[cfg(feature = "texts")]
    summary: "O decodificador pré-treinado: exemplos de prompt, tokens BPE, Gerar / Passo / Parar, temperatura, top-k, top-p e semente; os 10 próximos tokens ao lado de um modelo de bigramas; a atenção de cada camada e cabeça. Baixa os pesos do modelo (alguns MB) ao montar; o modelo roda no Web Worker da página, que fica livre enquanto ele gera.",
    attributes: &[
        choice("data-preset", "prompt inicial", "chaves (padrão), meninos, galinha, lagoa, machado, capitu", &["chaves", "meninos", "galinha", "lagoa", "machado", "capitu"], "chaves"),
        attr("data-prompt", "texto inicial próprio (substitui o do exemplo)", "texto"),
        MODEL,
    ],
    #[cfg(feature = "texts")]
    example: &[("data-preset", "machado")],
};

pub static TRAIN: WidgetDoc = WidgetDoc {
    name: "train",
    title: "Treine um Transformer no navegador",
    #[cfg(feature = "texts")]
    summary: "Um pequeno decodificador treinado no navegador, ao vivo: o conto “Missa do galo” ou o texto do leitor, um token por caractere ou o BPE do decodificador; a arquitetura original (2017) ou a moderna (RoPE, RMSNorm, SwiGLU, GQA), ou as duas lado a lado com os mesmos lotes; tamanhos editáveis com a contagem de parâmetros; treinar / pausar / recomeçar, passos por segundo; a curva da perda de treino e de validação contra o chute uniforme e o bigrama; amostras a cada 100 passos; a atenção de uma camada e cabeça; baixar os pesos. Baixa o conto (14 KB) ao montar.",
    attributes: &[],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static BPE: WidgetDoc = WidgetDoc {
    name: "bpe",
    title: "BPE: das letras aos tokens",
    #[cfg(feature = "texts")]
    summary: "O BPE em bytes do decodificador, passo a passo, sobre o texto do leitor: bytes, cada fusão na ordem, tokens finais e ids. Baixa só o tokenizador, não os pesos.",
    attributes: &[attr("data-text", "texto inicial", "texto"), MODEL],
    #[cfg(feature = "texts")]
    example: &[("data-text", "A atenção é tudo.")],
};

pub static VECTORS: WidgetDoc = WidgetDoc {
    name: "vectors",
    title: "Vetores no plano: soma, oposto e escala",
    #[cfg(feature = "texts")]
    summary: "a e b no plano, arrastáveis; a + b, −a e k·a redesenhados na hora.",
    attributes: &[],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static DOT_PRODUCT: WidgetDoc = WidgetDoc {
    name: "dot-product",
    title: "Produto escalar, norma e cosseno",
    #[cfg(feature = "texts")]
    summary: "Produtos componente a componente, u·v, normas, cosseno e ângulo; normalização.",
    attributes: &[choice("data-preset", "par de vetores", "basico (padrão), sequencia, one-hot, ortogonais, obtuso, carro", &["basico", "sequencia", "one-hot", "ortogonais", "obtuso", "carro"], "basico")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static MATMUL: WidgetDoc = WidgetDoc {
    name: "matmul",
    title: "Multiplicação de matrizes, célula a célula",
    #[cfg(feature = "texts")]
    summary: "A·B célula a célula, com a linha e a coluna por trás de cada célula; a consulta por one-hot.",
    attributes: &[choice("data-preset", "produto do artigo", "linhas (padrão), vetores, matriz-vetor, vetor-matriz, consulta", &["linhas", "vetores", "matriz-vetor", "vetor-matriz", "consulta"], "linhas")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static ONE_HOT: WidgetDoc = WidgetDoc {
    name: "one-hot",
    title: "Codificação one-hot de uma frase",
    #[cfg(feature = "texts")]
    summary: "Linhas one-hot de uma frase sobre um vocabulário e os produtos escalares entre elas.",
    attributes: &[choice("data-preset", "frase e vocabulário", "telhado (padrão), frutas", &["telhado", "frutas"], "telhado")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static BOW: WidgetDoc = WidgetDoc {
    name: "bow",
    title: "Do texto à matriz de contagens (Bag of Words)",
    #[cfg(feature = "texts")]
    summary: "Corpus → tokens → vocabulário ordenado → matriz de contagens; cosseno entre documentos.",
    attributes: &[corpus_preset("gato-telhado"), CORPUS],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static TF: WidgetDoc = WidgetDoc {
    name: "tf",
    title: "Frequência de termos: as oito variantes",
    #[cfg(feature = "texts")]
    summary: "As oito variantes de TF lado a lado, o K da variante aumentada e a base do logaritmo.",
    attributes: &[corpus_preset("tres-documentos"), CORPUS, TF_VARIANT, LOG_BASE],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static IDF: WidgetDoc = WidgetDoc {
    name: "idf",
    title: "IDF: cinco variantes e a curva por df",
    #[cfg(feature = "texts")]
    summary: "As cinco variantes de IDF (básico, IDF+1, probabilístico, máximo com teto, suavizado do sklearn), a curva IDF × df, «indefinido» e «−∞».",
    attributes: &[corpus_preset("tres-documentos"), CORPUS, IDF_VARIANT, LOG_BASE],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static TFIDF: WidgetDoc = WidgetDoc {
    name: "tfidf",
    title: "TF × IDF = TF-IDF",
    #[cfg(feature = "texts")]
    summary: "TF × IDF = TF-IDF lado a lado, stopwords, normalização L2 e cosseno entre documentos.",
    attributes: &[corpus_preset("detalhado"), CORPUS, TF_VARIANT, IDF_VARIANT, LOG_BASE],
    #[cfg(feature = "texts")]
    example: &[("data-corpus", "o gato dorme\no cão late")],
};

pub static SEARCH: WidgetDoc = WidgetDoc {
    name: "search",
    title: "Busca por similaridade de cosseno",
    #[cfg(feature = "texts")]
    summary: "Uma consulta ordenada contra os documentos pelo cosseno dos vetores TF-IDF.",
    attributes: &[corpus_preset("busca"), CORPUS, attr("data-query", "consulta inicial", "padrão: a do corpus do artigo"), LOG_BASE],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static MARKOV: WidgetDoc = WidgetDoc {
    name: "markov",
    title: "Cadeia de Markov: sol e chuva",
    #[cfg(feature = "texts")]
    summary: "A cadeia do clima: P 2×2 editável (linhas que não somam 1 são normalizadas, com aviso), grafo de estados, amostrador animado e convergência para a distribuição estacionária.",
    attributes: &[],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static TRANSITIONS: WidgetDoc = WidgetDoc {
    name: "transitions",
    title: "Matriz de transição de um corpus",
    #[cfg(feature = "texts")]
    summary: "Corpus → mapa de calor das transições de bigramas (contagens ou probabilidades), grafo, consulta one-hot h × T passo a passo, amostrador de frases e probabilidade de uma frase digitada.",
    attributes: &[ngram_preset("tres-comandos", "corpus do artigo de modelagem de sequências", "tres-comandos (padrão), oito-documentos"), attr("data-word", "palavra da consulta one-hot", "padrão: meus")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static SPARSITY: WidgetDoc = WidgetDoc {
    name: "sparsity",
    title: "A explosão dos N-gramas",
    #[cfg(feature = "texts")]
    summary: "Calculadora de |V|^N, N-gramas observados contra possíveis para N = 1…5 e o gráfico de Zipf com o expoente ajustado.",
    attributes: &[
        number("data-vocabulary", "tamanho do vocabulário |V|", "padrão: 50000", NumberRange::integer(1.0, 10_000_000.0, 50_000.0)),
        number("data-n", "ordem N", "padrão: 3", NumberRange::integer(1.0, 10.0, 3.0)),
        choice("data-preset", "corpus do gráfico de Zipf", "cinco-documentos (padrão), oito-documentos", &["cinco-documentos", "oito-documentos"], "cinco-documentos"),
    ],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static DOC_VECTORS: WidgetDoc = WidgetDoc {
    name: "doc-vectors",
    title: "Documentos como vetores de transição",
    #[cfg(feature = "texts")]
    summary: "T_d de cada documento, vetores por trincas ou por uma lista fixa de pares, L2, tabelas de cosseno e distância; «só não nulos» (o código do artigo) contra o achatamento completo.",
    attributes: &[ngram_preset("tres-comandos", "corpus do artigo de modelagem de sequências", "tres-comandos (padrão), oito-documentos")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static LIKELIHOOD: WidgetDoc = WidgetDoc {
    name: "likelihood",
    title: "Documento contra corpus: razões de verossimilhança",
    #[cfg(feature = "texts")]
    summary: "T_d ao lado de T_{corpus} e as barras das razões de verossimilhança v* (com a errata corrigida).",
    attributes: &[
        ngram_preset("oito-documentos", "corpus", "oito-documentos (padrão), tres-comandos"),
        index("data-document", "qual documento (a partir de 1)", "1 (padrão), 2, …"),
    ],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static VOTES: WidgetDoc = WidgetDoc {
    name: "votes",
    title: "Pares com saltos: a tabela de votos",
    #[cfg(feature = "texts")]
    summary: "Votos de pares com saltos: contagens de trincas, tabela de votos, uma caixa por palavra anterior, barras empilhadas dos votos, scores e margem.",
    attributes: &[VOTE_PRESET, VOTE_SENTENCE, VOTE_KEEP],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static VOTE_MASK: WidgetDoc = WidgetDoc {
    name: "vote-mask",
    title: "Máscara sobre os votos (produto de Hadamard)",
    #[cfg(feature = "texts")]
    summary: "Produto de Hadamard sobre os votos: um peso em [0, 1] por palavra anterior; painéis V, m, V ∘ m e os scores.",
    attributes: &[VOTE_PRESET, VOTE_SENTENCE, VOTE_KEEP],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static MASK_EMBEDDINGS: WidgetDoc = WidgetDoc {
    name: "mask-embeddings",
    title: "Máscara na atenção: somar −∞ ou multiplicar por 0",
    #[cfg(feature = "texts")]
    summary: "Uma consulta sobre embeddings mascarados (com a correção do exemplo E4): E, W^Q, W^K, W^V e máscara editáveis; −∞ somado, ×0 multiplicado ou nenhuma máscara.",
    attributes: &[choice("data-mode", "tipo de máscara", "additive (padrão), multiplicative, none", &["additive", "multiplicative", "none"], "additive")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static FFN_DETECTOR: WidgetDoc = WidgetDoc {
    name: "ffn-detector",
    title: "A primeira camada da FFN como detector de combinações",
    #[cfg(feature = "texts")]
    summary: "A primeira camada da FFN como detector de combinações: entradas liga/desliga, W1 editável (uma linha por neurônio), barras antes e depois da ativação, tabela-verdade, ReLU ou GeLU.",
    attributes: &[
        choice("data-activation", "função de ativação", "relu (padrão), gelu", &["relu", "gelu"], "relu"),
        flag("data-truth", "abre a tabela-verdade", "true"),
    ],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static SOFTMAX_LAB: WidgetDoc = WidgetDoc {
    name: "softmax-lab",
    title: "Laboratório de softmax: somar não muda, multiplicar muda",
    #[cfg(feature = "texts")]
    summary: "softmax(z), softmax(z + c), softmax(k·z) e a jacobiana: somar uma constante não muda nada, multiplicar muda tudo.",
    attributes: &[],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static CHAR_TOKENIZER: WidgetDoc = WidgetDoc {
    name: "char-tokenizer",
    title: "Tokenizador de caracteres",
    #[cfg(feature = "texts")]
    summary: "Textos → ids de caracteres com a tabela fixa (<pad> = 0, <bos> = 1, <eos> = 2, a = 3 …, acentos, <unk>); o lote b × t com preenchimento à esquerda ou à direita, t mais longo ou fixo, truncamento.",
    attributes: &[
        choice("data-preset", "texto ou lote inicial", "frase (padrão: «gato»), lote (os cinco animais do artigo)", &["frase", "lote"], "frase"),
        attr("data-text", "textos iniciais, um por linha (no lugar dos do data-preset)", "texto"),
    ],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static EMBEDDING_LOOKUP: WidgetDoc = WidgetDoc {
    name: "embedding-lookup",
    title: "Embeddings: one-hot × tabela",
    #[cfg(feature = "texts")]
    summary: "One-hot O × tabela E = X, posição por posição (passo a passo ou animado); linhas de E editáveis; a leitura direta dá o mesmo resultado.",
    attributes: &[attr("data-text", "texto inicial", "padrão: baba")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static SELF_ATTENTION_STEPS: WidgetDoc = WidgetDoc {
    name: "self-attention-steps",
    title: "Autoatenção passo a passo",
    #[cfg(feature = "texts")]
    summary: "Uma consulta passo a passo: produtos escalares, ÷√d_k, exp, pesos do softmax e soma ponderada (Exemplos 1 e 2 da autoatenção); máscara causal; mapas de S, A e da saída.",
    attributes: &[
        choice("data-preset", "exemplo da autoatenção", "exemplo-1 (padrão), exemplo-2", &["exemplo-1", "exemplo-2"], "exemplo-1"),
        flag("data-causal", "começa com a máscara causal ligada", "sim"),
    ],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static SCALING: WidgetDoc = WidgetDoc {
    name: "scaling",
    title: "Por que dividir por √d",
    #[cfg(feature = "texts")]
    summary: "Variância de q·k e saturação do softmax com e sem ÷√d para qualquer d (consultas e chaves aleatórias com semente) e a curva de saturação em função de d.",
    attributes: &[number("data-d", "dimensão d inicial", "padrão: 64", NumberRange::integer(1.0, 2048.0, 64.0))],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static MULTI_HEAD: WidgetDoc = WidgetDoc {
    name: "multi-head",
    title: "Atenção com múltiplas cabeças",
    #[cfg(feature = "texts")]
    summary: "O Exemplo 3 (duas cabeças, concatenação, W^O editável, cabeça 1 impressa contra calculada) ou a remodelagem (b, t, d) → (b, h, t, d/h) com controle de h e o caso d % h ≠ 0 explicado.",
    attributes: &[choice("data-part", "qual parte", "exemplo-3 (padrão), remodelar", &["exemplo-3", "remodelar"], "exemplo-3")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static POSITIONAL_ENCODING: WidgetDoc = WidgetDoc {
    name: "positional-encoding",
    title: "Codificação posicional senoidal",
    #[cfg(feature = "texts")]
    summary: "Mapa de calor da codificação posicional senoidal com controles de t, d e θ; a tabela de t = 5, d = 4; PE(0)·PE(k) em função de k; a propriedade do deslocamento (rotação) conferida.",
    attributes: &[
        number("data-t", "número de posições t", "4 a 128; padrão: 64", NumberRange::integer(4.0, 128.0, 64.0)),
        number("data-d", "dimensão d (par)", "2 a 128; padrão: 32", NumberRange { min: 2.0, max: 128.0, default: 32.0, step: 2.0 }),
    ],
    #[cfg(feature = "texts")]
    example: &[("data-t", "32"), ("data-d", "16")],
};

pub static SHIFT_TABLE: WidgetDoc = WidgetDoc {
    name: "shift-table",
    title: "Geração por deslocamento",
    #[cfg(feature = "texts")]
    summary: "Os deslocamentos da janela autorregressiva (<bos>cachorro<eos> → … dog<eos>), passo a passo, com parada em <eos> ou no limite de passos.",
    attributes: &[
        attr("data-input", "frase de entrada", "padrão: cachorro"),
        attr("data-output", "frase de saída", "padrão: dog"),
    ],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static TRANSFORMER_BLOCK: WidgetDoc = WidgetDoc {
    name: "transformer-block",
    title: "Bloco Transformer",
    #[cfg(feature = "texts")]
    summary: "Um bloco (d = 8, 2 cabeças, d_{ff} = 32) pós-LN ou pré-LN com diagrama, conexões residuais, histogramas da normalização, a camada 4× com ReLU e a contagem de parâmetros em d = 512.",
    attributes: &[attr("data-text", "texto de entrada", "padrão: gato")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static CROSS_ATTENTION: WidgetDoc = WidgetDoc {
    name: "cross-attention",
    title: "Atenção cruzada: duas ligações",
    #[cfg(feature = "texts")]
    summary: "Atenção codificador–decodificador ligada como no artigo original (Q do decodificador; K, V do codificador) contra o código do artigo (Q, K do codificador; V do decodificador): o peso do futuro e uma sonda que troca o último token do decodificador.",
    attributes: &[
        attr("data-input", "frase do codificador", "padrão: cachorro"),
        attr("data-output", "frase do decodificador", "padrão: dog"),
    ],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static OUTPUT_HEAD: WidgetDoc = WidgetDoc {
    name: "output-head",
    title: "Cabeça de saída: logits, softmax e argmax",
    #[cfg(feature = "texts")]
    summary: "h → logits → softmax(·/T) → argmax sobre a tabela de 61 tokens, e o que o argmax + 2 do artigo escolheria.",
    attributes: &[attr("data-token", "token cujo embedding é o h inicial", "padrão: o")],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static MATMUL_BENCH: WidgetDoc = WidgetDoc {
    name: "matmul-bench",
    title: "CPU × WebGPU: uma multiplicação de matrizes no seu computador",
    #[cfg(feature = "texts")]
    summary: "O produto de matrizes n×n medido na CPU e em WebGPU no computador do leitor (mediana depois de um aquecimento), o tempo contra n nos dois, em escala log, e a maior diferença entre os produtos; controle de tamanho e uma varredura completa.",
    attributes: &[],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static ROPE: WidgetDoc = WidgetDoc {
    name: "rope",
    title: "RoPE: posições como rotações",
    #[cfg(feature = "texts")]
    summary: "q e k editáveis em todas as posições 0 … P−1, girados pela RoPE e, ao lado, com a codificação senoidal de 2017 somada: os scores q_m·k_n dos dois na mesma escala, a variação ao longo de cada diagonal medida (a da RoPE depende só de m − n), o score contra a distância e q girado posição a posição; controles de P e θ.",
    attributes: &[number("data-positions", "número de posições P", "2 a 24; padrão: 8", NumberRange::integer(2.0, 24.0, 8.0))],
    #[cfg(feature = "texts")]
    example: &[("data-positions", "6")],
};

pub static RMS_NORM: WidgetDoc = WidgetDoc {
    name: "rms-norm",
    title: "RMSNorm contra layer norm",
    #[cfg(feature = "texts")]
    summary: "Um vetor x editável, x + c e s·x, normalizados por layer norm e por RMSNorm na mesma escala de cores: o que cada uma esquece (a layer norm, deslocamento e escala; a RMSNorm, só a escala), medido, com a média da saída e os parâmetros de cada uma.",
    attributes: &[],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static SWIGLU: WidgetDoc = WidgetDoc {
    name: "swiglu",
    title: "SwiGLU: a FFN com portão",
    #[cfg(feature = "texts")]
    summary: "As curvas de ReLU, GELU e SiLU; as unidades ocultas dos mesmos tokens na FFN de 2017 e na SwiGLU, na mesma escala, com os zeros exatos da ReLU contados; os parâmetros na mesma largura e pela regra de ⅔, para d e d_ff escolhidos e para os do artigo de 2017.",
    attributes: &[
        number("data-d", "largura d do modelo", "1 a 64; padrão: 8", NumberRange::integer(1.0, 64.0, 8.0)),
        number("data-d-ff", "largura d_ff da FFN de 2017", "1 a 256; padrão: 32", NumberRange::integer(1.0, 256.0, 32.0)),
    ],
    #[cfg(feature = "texts")]
    example: &[],
};

pub static GQA: WidgetDoc = WidgetDoc {
    name: "gqa",
    title: "GQA: cabeças que dividem K e V",
    #[cfg(feature = "texts")]
    summary: "h cabeças de Q e g de K e V (MHA, GQA, MQA): K como o cache o guarda e como cada cabeça o lê, os pesos de atenção causal de cada cabeça, e o cache KV dos três arranjos lado a lado para um modelo de hoje, com camadas e contexto editáveis.",
    attributes: &[
        number("data-heads", "cabeças de Q, h", "1 a 16; padrão: 8", NumberRange::integer(1.0, 16.0, 8.0)),
        number("data-kv-heads", "cabeças de K e V, g (divide h)", "1 a 16; padrão: 2", NumberRange::integer(1.0, 16.0, 2.0)),
    ],
    #[cfg(feature = "texts")]
    example: &[("data-heads", "4"), ("data-kv-heads", "1")],
};

/// The widgets that compute a model on the page (issue 36): the BPE tokenizer (the decoder's
/// vocabulary) and the gradient check (whose whole-decoder part runs the training ops). The site crate builds them under its feature `models` and the rest under `articles`;
/// `web::widgets`'s test checks that the two lists agree.
pub static MODEL_WIDGETS: &[&WidgetDoc] = &[&GRADIENT_CHECK, &BPE];

/// Today's block part by part (issue 41): the only widgets that run today's forward ops, in a
/// build of their own (feature `modern`), which only their page loads.
pub static MODERN_WIDGETS: &[&WidgetDoc] = &[&ROPE, &RMS_NORM, &SWIGLU, &GQA];

/// The widgets whose model runs in the page's Web Worker (the decoder playground, training):
/// their build (feature `resident`) carries only their drawing; the worker's module computes.
pub static RESIDENT_WIDGETS: &[&WidgetDoc] = &[&DECODER, &TRAIN];

/// The article widgets of attention and the Transformer (the widgets' folders `attention` and
/// `transformer`, core's of the same names): their build (feature `articles-attention`) is the
/// one the pages of articles 4 and 5 and attention's pages of 2 and 3 load. The other article
/// widgets, of vectors, text and sequences and the benchmark, are in `articles-sequences`: two
/// builds of about half an article build each, since no page mixes the two groups (issue 36).
pub static ATTENTION_WIDGETS: &[&WidgetDoc] = &[
    &ATTENTION,
    &MASKED_SOFTMAX,
    &SOFT_DICTIONARY,
    &CHAR_TOKENIZER,
    &EMBEDDING_LOOKUP,
    &SELF_ATTENTION_STEPS,
    &SCALING,
    &MULTI_HEAD,
    &POSITIONAL_ENCODING,
    &SHIFT_TABLE,
    &TRANSFORMER_BLOCK,
    &CROSS_ATTENTION,
    &OUTPUT_HEAD,
];

/// The article widgets that a model page also has (the softmax lab, beside the gradient
/// check): in the sequences' and the models' builds, so that page loads the models' build.
pub static SHARED_WIDGETS: &[&WidgetDoc] = &[&SOFTMAX_LAB];

/// The builds of the page's module (index.html), by the widgets they carry: a page loads the
/// smallest that has all of its own (`module_for`).
pub mod module {
    /// Every widget: the catalogue, blogs (`embed.js`), a page that mixes the groups (none of
    /// the site's pages does today).
    pub const FULL: &str = "atencao";
    /// The article widgets of vectors, text and sequences, and the benchmark
    /// (`bundles/articles-sequences`).
    pub const SEQUENCES: &str = "atencao-sequences";
    /// The article widgets of attention and the Transformer (`bundles/articles-attention`).
    pub const ATTENTION: &str = "atencao-attention";
    /// The model widgets that compute on the page (`bundles/models`): BPE, the gradient check.
    pub const MODELS: &str = "atencao-models";
    /// The decoder playground and training, whose models run in the worker (`bundles/resident`).
    pub const RESIDENT: &str = "atencao-resident";
    /// Today's block part by part (`bundles/modern`): RoPE, RMSNorm, SwiGLU, GQA.
    pub const MODERN: &str = "atencao-modern";
}

/// The build that holds the kind `name`: the models' for a model widget, the resident one for
/// the decoder and training, the modern one for today's block, the attention articles' for
/// attention and the Transformer, none in particular (None) for a kind in the sequences' and
/// the models' builds, the sequences' for the rest (an unknown name too: that build says it
/// does not exist).
pub fn build_of(name: &str) -> Option<&'static str> {
    let among = |list: &[&WidgetDoc]| list.iter().any(|w| w.name == name);
    if among(MODEL_WIDGETS) {
        Some(module::MODELS)
    } else if among(RESIDENT_WIDGETS) {
        Some(module::RESIDENT)
    } else if among(MODERN_WIDGETS) {
        Some(module::MODERN)
    } else if among(ATTENTION_WIDGETS) {
        Some(module::ATTENTION)
    } else if among(SHARED_WIDGETS) {
        None
    } else {
        Some(module::SEQUENCES)
    }
}

/// `build_of` for every documented kind, as the line of JavaScript that scripts/pages.sh
/// stamps into embed.js (`const WIDGET_BUILDS = …;`), so a blog post loads the build of its
/// widgets as the site's pages do.
pub fn builds_for_embed() -> String {
    let entries: Vec<String> = WIDGETS
        .iter()
        .map(|w| format!("\"{}\": {}", w.name, build_of(w.name).map_or_else(|| "null".to_string(), |b| format!("\"{b}\""))))
        .collect();
    format!("const WIDGET_BUILDS = {{{}}};", entries.join(", "))
}

/// Which build of the page's module a page with these widgets (their `data-widget` names)
/// loads: the one of its group when all are of one group, the full one otherwise; a page
/// without widgets, or with only the shared ones, gets the sequences' build (a shared widget
/// is in that build and the models').
pub fn module_for<'a>(kinds: impl IntoIterator<Item = &'a str>) -> &'static str {
    let (mut groups, mut shared) = (Vec::new(), false);
    for kind in kinds {
        match build_of(kind) {
            Some(build) if !groups.contains(&build) => groups.push(build),
            Some(_) => {}
            None => shared = true,
        }
    }
    match groups[..] {
        [] => module::SEQUENCES,
        [one] if !shared || one == module::SEQUENCES || one == module::MODELS => one,
        _ => module::FULL,
    }
}

/// Every widget kind, in the catalogue's order.
pub static WIDGETS: &[&WidgetDoc] = &[
    &ATTENTION,
    &MASKED_SOFTMAX,
    &SOFT_DICTIONARY,
    &GRADIENT_CHECK,
    &DECODER,
    &TRAIN,
    &BPE,
    &VECTORS,
    &DOT_PRODUCT,
    &MATMUL,
    &ONE_HOT,
    &BOW,
    &TF,
    &IDF,
    &TFIDF,
    &SEARCH,
    &MARKOV,
    &TRANSITIONS,
    &SPARSITY,
    &DOC_VECTORS,
    &LIKELIHOOD,
    &VOTES,
    &VOTE_MASK,
    &MASK_EMBEDDINGS,
    &FFN_DETECTOR,
    &SOFTMAX_LAB,
    &CHAR_TOKENIZER,
    &EMBEDDING_LOOKUP,
    &SELF_ATTENTION_STEPS,
    &SCALING,
    &MULTI_HEAD,
    &POSITIONAL_ENCODING,
    &SHIFT_TABLE,
    &TRANSFORMER_BLOCK,
    &CROSS_ATTENTION,
    &OUTPUT_HEAD,
    &MATMUL_BENCH,
    &ROPE,
    &RMS_NORM,
    &SWIGLU,
    &GQA,
];

/// The script line the catalogue's snippets start with, relative to the site's root: the page
/// generator writes it, and the full build's catalogue makes it the absolute address of
/// embed.js wherever the site is hosted.
pub const EMBED_SCRIPT: &str = r#"<script type="module" src="embed.js"></script>"#;

/// The documentation of the kind named `name`.
pub fn doc(name: &str) -> Option<&'static WidgetDoc> {
    WIDGETS.iter().copied().find(|w| w.name == name)
}

/// The HTML an author pastes for `doc`'s example (attribute values escaped for HTML).
#[cfg(feature = "texts")]
pub fn snippet(doc: &WidgetDoc) -> String {
    let mut html = format!(r#"<div data-widget="{}""#, doc.name);
    for (name, value) in doc.example {
        let quote = if value.contains('"') { '\'' } else { '"' };
        let escaped = value.replace('&', "&amp;").replace(quote, if quote == '"' { "&quot;" } else { "&#39;" });
        html.push_str(&format!(" {name}={quote}{escaped}{quote}"));
    }
    html.push_str("></div>");
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_loads_the_build_of_its_widgets_group() {
        assert_eq!(module_for([]), module::SEQUENCES);
        assert_eq!(module_for(["tfidf", "markov"]), module::SEQUENCES);
        assert_eq!(module_for(["attention", "self-attention-steps"]), module::ATTENTION);
        assert_eq!(module_for(["tfidf", "attention"]), module::FULL, "no page mixes the article groups");
        assert_eq!(module_for(["attention", "softmax-lab"]), module::FULL, "the attention build has no shared widget");
        assert_eq!(module_for(["markov", "softmax-lab"]), module::SEQUENCES);
        assert_eq!(module_for(["decoder"]), module::RESIDENT);
        assert_eq!(module_for(["decoder", "train"]), module::RESIDENT);
        assert_eq!(module_for(["decoder", "bpe"]), module::FULL);
        assert_eq!(module_for(["decoder", "softmax-lab"]), module::FULL, "the resident build has no shared widget");
        assert_eq!(module_for(["gradient-check", "softmax-lab"]), module::MODELS);
        assert_eq!(module_for(["softmax-lab"]), module::SEQUENCES);
        assert_eq!(module_for(["gradient-check", "tfidf"]), module::FULL);
        assert_eq!(module_for(["rope", "rms-norm", "swiglu", "gqa"]), module::MODERN);
        assert_eq!(module_for(["rope", "tfidf"]), module::FULL);
        assert_eq!(module_for(["nao-existe"]), module::SEQUENCES, "the sequences' build reports an unknown kind");
        let line = builds_for_embed();
        assert!(line.starts_with("const WIDGET_BUILDS = {\"attention\": \"atencao-attention\", ") && line.ends_with("};"), "{line}");
        assert!(line.contains("\"decoder\": \"atencao-resident\"") && line.contains("\"bpe\": \"atencao-models\"") && line.contains("\"softmax-lab\": null") && line.contains("\"tfidf\": \"atencao-sequences\""), "{line}");
        assert!(MODEL_WIDGETS.iter().chain(RESIDENT_WIDGETS).chain(MODERN_WIDGETS).chain(ATTENTION_WIDGETS).all(|m| WIDGETS.iter().any(|w| std::ptr::eq(*w, *m))), "a model widget is documented");
    }

    #[test]
    fn examples_use_documented_attributes() {
        for widget in WIDGETS {
            for (name, _) in widget.example {
                assert!(widget.attributes.iter().any(|a| a.name == *name), "{}: example uses undocumented {name}", widget.name);
            }
        }
    }

    /// The preset lists declared here are the core's: a preset added there is offered here.
    #[test]
    fn declared_corpora_are_the_cores() {
        let corpora: Vec<&str> = atencao_core::examples::ARTICLE_CORPORA.iter().map(|c| c.id).collect();
        assert_eq!(CORPUS_IDS, corpora.as_slice());
        let ngrams: Vec<&str> = atencao_core::sequence::presets::NGRAM_PRESETS.iter().map(|p| p.id).collect();
        assert_eq!(NGRAM_IDS, ngrams.as_slice());
        let votes: Vec<&str> = atencao_core::sequence::presets::VOTE_PRESETS.iter().map(|p| p.id).collect();
        match VOTE_PRESET.kind {
            AttrKind::Choice { values, .. } => assert_eq!(values, votes.as_slice()),
            _ => panic!("data-preset of votes is a choice"),
        }
    }

    /// A choice's default is one of its values, and its values are named in the text authors read.
    #[test]
    fn choices_are_consistent() {
        for widget in WIDGETS {
            for a in widget.attributes {
                if let AttrKind::Choice { values, default } = a.kind {
                    assert!(values.contains(&default), "{} {}: default {default}", widget.name, a.name);
                    for v in values {
                        assert!(a.values.contains(v), "{} {}: {v} is not in «{}»", widget.name, a.name, a.values);
                    }
                }
            }
        }
    }

    #[test]
    fn snippet_quotes_json_with_single_quotes() {
        let attention = doc("attention").unwrap();
        assert!(snippet(attention).starts_with(r#"<div data-widget="attention" data-matrices='{"x": [[1, 0]"#));
        assert_eq!(snippet(doc("vectors").unwrap()), r#"<div data-widget="vectors"></div>"#);
        let tfidf = snippet(doc("tfidf").unwrap());
        assert!(tfidf.contains("data-corpus=\"o gato dorme\no cão late\""), "{tfidf}");
    }
}
